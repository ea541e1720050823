package store

import "context"

// Feed is how the processes that share a store learn of each other's
// changes. A store no other process writes has nothing to report (Solo).
type Feed interface {
	// Listen calls fn, on one goroutine, for every change another process
	// commits from now on, until ctx ends or the store closes; it returns
	// once listening. A lost connection is re-established with backoff;
	// then fn gets NoticeResync and a NoticeEmail for every email stored
	// while it was lost (one already reported is not reported again).
	Listen(ctx context.Context, fn func(Notice)) error
	// NotifyChaos tells the other processes that chaos acted on mail for
	// the inbox hash (a NoticeChaos of data, a few hundred bytes at most).
	NotifyChaos(ctx context.Context, hash string, data []byte) error
}

// Solo is the Feed of a store that one process alone writes (memory,
// bbolt): no other process changes it, and none is there to notify.
type Solo struct{}

// Listen implements Feed: no notice ever comes.
func (Solo) Listen(context.Context, func(Notice)) error { return nil }

// NotifyChaos implements Feed: there is no one to tell.
func (Solo) NotifyChaos(context.Context, string, []byte) error { return nil }
