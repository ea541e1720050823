package postgres

import (
	"context"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"

	"sandview/server/store"
)

// Group commit: concurrent Commit calls are gathered by a few committer
// goroutines into one transaction each, so that they share one round trip
// and one WAL flush instead of paying one each.
const (
	// committers is how many groups may be in flight at once.
	committers = 2
	// maxCommitGroup bounds the commits one transaction carries.
	maxCommitGroup = 64
)

// queuedCommit is one Commit call's statements, waiting for its group.
type queuedCommit struct {
	batch *pgx.Batch
	// logical is what the statements do, for a lookup when the database's
	// answer is lost (outcome.go).
	logical store.Batch
	done    chan error
}

// startCommitters starts the committer goroutines; they end with the
// store, and stopped is closed once they all have.
func (s *emails) startCommitters() {
	var running sync.WaitGroup
	for range committers {
		running.Go(s.commitLoop)
	}
	s.wg.Go(func() {
		running.Wait()
		close(s.stopped)
	})
}

// submit queues a commit and waits until it is committed (or failed). A
// caller whose ctx ends stops waiting; its commit may still be made.
func (s *emails) submit(ctx context.Context, c *queuedCommit) error {
	c.done = make(chan error, 1)
	select {
	case s.queue <- c:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.ctx.Done():
		return store.ErrClosed
	}
	select {
	case err := <-c.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-s.stopped:
		// The committers answered every commit they took: one still
		// unanswered was never made.
		select {
		case err := <-c.done:
			return err
		default:
			return store.ErrClosed
		}
	}
}

// commitLoop takes the first queued commit, gathers every other one
// already queued, and commits them together, until the store closes.
func (s *emails) commitLoop() {
	group := make([]*queuedCommit, 0, maxCommitGroup)
	for {
		select {
		case <-s.ctx.Done():
			for {
				select {
				case c := <-s.queue:
					c.done <- store.ErrClosed
				default:
					return
				}
			}
		case first := <-s.queue:
			group = append(group[:0], first)
		gather:
			for len(group) < maxCommitGroup {
				select {
				case c := <-s.queue:
					group = append(group, c)
				default:
					break gather
				}
			}
			s.commitGroup(group)
		}
	}
}

// commitGroup commits a group in one transaction. When the database
// refuses it (one of them put into an inbox deleted meanwhile, or was
// rendered from stale webhooks), each is committed on its own, so that only
// the failing ones fail. When its answer is lost, each is looked up, and
// made if it was not (resolve), within one bound for the group.
func (s *emails) commitGroup(group []*queuedCommit) {
	if len(group) > 1 {
		// Copies: pgx keeps a sent query's prepared statement in it, which
		// a failed batch leaves naming a statement the server dropped.
		merged := &pgx.Batch{}
		for _, c := range group {
			for _, q := range c.batch.QueuedQueries {
				copied := *q
				merged.QueuedQueries = append(merged.QueuedQueries, &copied)
			}
		}
		err := s.runCommit(s.ctx, merged)
		switch {
		case err == nil:
			for _, c := range group {
				c.done <- nil
			}
			return
		case errors.Is(err, errAnswerLost):
			ctx, cancel := s.lookupContext()
			defer cancel()
			for _, c := range group {
				c.done <- s.resolveBy(ctx, c.logical, err)
			}
			return
		}
	}
	var lookup context.Context // one bound for the group's lookups
	for _, c := range group {
		err := s.runCommit(s.ctx, c.batch)
		if errors.Is(err, errAnswerLost) {
			if lookup == nil {
				var cancel context.CancelFunc
				lookup, cancel = s.lookupContext()
				defer cancel()
			}
			err = s.resolveBy(lookup, c.logical, err)
		}
		c.done <- err
	}
}
