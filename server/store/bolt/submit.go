package bolt

import (
	"context"
	"sync/atomic"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
)

// writeRequest is one caller's write. check runs first and may refuse the
// write without changing anything; apply must not fail halfway.
type writeRequest struct {
	check func(tx *bbolt.Tx) error
	apply func(c *changes) error
	done  chan error
	// result is check's answer.
	result error
	// state is requestQueued until the committer takes the request
	// (requestTaken) or its caller gives up waiting (requestAbandoned):
	// an abandoned request is never run, so its check and apply write
	// nothing their caller has stopped waiting for.
	state atomic.Int32
}

// The states of a writeRequest.
const (
	requestQueued int32 = iota
	requestTaken
	requestAbandoned
)

// submit queues a request and returns the wait for its answer: requests
// are committed in the order they were submitted.
func (b *Store) submit(ctx context.Context, check func(tx *bbolt.Tx) error, apply func(c *changes) error) (wait func() error) {
	r := &writeRequest{check: check, apply: apply, done: make(chan error, 1)}
	failed := func(err error) func() error { return func() error { return err } }
	select {
	case <-b.closing:
		return failed(store.ErrClosed)
	default:
	}
	select {
	case <-b.closing:
		return failed(store.ErrClosed)
	case <-ctx.Done():
		return failed(ctx.Err())
	case b.requests <- r:
		return r.wait(ctx, b.done)
	}
}

// wait returns the wait for r's answer: the committer's, or ErrClosed
// when it stopped without taking r (it answers every request it takes).
// When ctx ends first, r is abandoned unless the committer has taken it,
// in which case its answer, which comes at once, is awaited.
func (r *writeRequest) wait(ctx context.Context, stopped <-chan struct{}) func() error {
	return func() error {
		select {
		case err := <-r.done:
			return err
		case <-stopped:
			select {
			case err := <-r.done:
				return err
			default:
				return store.ErrClosed
			}
		case <-ctx.Done():
			if r.state.CompareAndSwap(requestQueued, requestAbandoned) {
				return ctx.Err()
			}
			return <-r.done
		}
	}
}
