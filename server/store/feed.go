package store

import (
	"context"
	"slices"
	"sync"
)

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

// Solo is the Feed, the leadership and the secrets of a store that one
// process alone writes (memory, bbolt): no other process changes it, none
// is there to notify, the one process leads, and its secrets are kept for
// the process (the server keeps a data directory's keys in files beside
// the store). The zero value is ready; it is not copied once used.
type Solo struct {
	mu      sync.Mutex
	secrets map[string][]byte
}

// Listen implements Feed: no notice ever comes.
func (*Solo) Listen(context.Context, func(Notice)) error { return nil }

// NotifyChaos implements Feed: there is no one to tell.
func (*Solo) NotifyChaos(context.Context, string, []byte) error { return nil }

// Lead implements Cluster: the one process always leads.
func (*Solo) Lead(context.Context) (bool, error) { return true, nil }

// Secret implements Cluster for the life of the process.
func (s *Solo) Secret(_ context.Context, name string, generate func() ([]byte, error)) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.secrets[name]; ok {
		return slices.Clone(v), false, nil
	}
	v, err := generate()
	if err != nil {
		return nil, false, err
	}
	if s.secrets == nil {
		s.secrets = make(map[string][]byte)
	}
	s.secrets[name] = slices.Clone(v)
	return v, true, nil
}
