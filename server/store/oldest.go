package store

import "container/heap"

// An InboxWalk walks one inbox's emails in ID order (the oldest first);
// a new walk is at its first email.
type InboxWalk interface {
	// Key is the email the walk is at; Size, its size.
	Key() EmailKey
	Size() (int64, error)
	// Next moves to the next email and reports whether there is one.
	Next() bool
}

// OldestBeyond returns the oldest emails of all the walks (by key,
// whichever inbox holds them) whose sizes add up to at least excess:
// what a store evicts to hold excess bytes fewer. Each walk must be at
// an email.
func OldestBeyond(walks []InboxWalk, excess int64) ([]EmailKey, error) {
	h := walkHeap(walks)
	heap.Init(&h)
	var out []EmailKey
	for excess > 0 && len(h) > 0 {
		w := h[0]
		size, err := w.Size()
		if err != nil {
			return nil, err
		}
		out = append(out, w.Key())
		excess -= size
		if w.Next() {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return out, nil
}

// walkHeap is a heap of walks, the one at the smallest key first.
type walkHeap []InboxWalk

func (h walkHeap) Len() int           { return len(h) }
func (h walkHeap) Less(i, j int) bool { return CompareKeys(h[i].Key(), h[j].Key()) < 0 }
func (h walkHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *walkHeap) Push(x any)        { *h = append(*h, x.(InboxWalk)) }
func (h *walkHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	*h = old[:len(old)-1]
	return w
}
