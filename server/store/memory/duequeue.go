package memory

import (
	"cmp"
	"container/heap"
	"time"
)

// dueQueue orders the unclaimed deliveries of a Webhooks, soonest due
// first (then oldest), so that a claim takes the due ones without walking
// the whole queue. An entry goes stale when its delivery is claimed,
// dropped or pushed again; stale entries are skipped as they come up.
type dueQueue []dueEntry

type dueEntry struct {
	q   *queued
	gen uint64 // q.gen when pushed: a later push makes this one stale
	due time.Time
	seq uint64
}

func (h dueQueue) Len() int { return len(h) }
func (h dueQueue) Less(i, j int) bool {
	return cmp.Or(h[i].due.Compare(h[j].due), cmp.Compare(h[i].seq, h[j].seq)) < 0
}
func (h dueQueue) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dueQueue) Push(x any)   { *h = append(*h, x.(dueEntry)) }
func (h *dueQueue) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// push makes q claimable (again): unclaimed, in order of its due time.
func (w *Webhooks) push(q *queued) {
	q.leased = time.Time{}
	q.gen++
	heap.Push(&w.due, dueEntry{q: q, gen: q.gen, due: q.Due, seq: q.Seq})
}

// peek returns the soonest unclaimed delivery (nil: none), dropping stale
// entries on the way.
func (w *Webhooks) peek() *queued {
	for len(w.due) > 0 {
		e := w.due[0]
		if w.queue[e.q.ID] == e.q && e.q.leased.IsZero() && e.gen == e.q.gen {
			return e.q
		}
		heap.Pop(&w.due)
	}
	return nil
}
