package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Bucket layout: inboxes/<hash> = JSON Inbox; emails/<hash>/<id> = encoded
// Email (see encodeEmail).
var (
	bucketInboxes = []byte("inboxes")
	bucketEmails  = []byte("emails")
)

// maxGroup bounds how many queued writes share one transaction.
const maxGroup = 512

// Bolt is a durable Store in one bbolt file. Writes from concurrent callers
// are grouped by a committer goroutine into one transaction and one fsync;
// each call returns once its write is on disk.
type Bolt struct {
	db       *bolt.DB
	requests chan *writeRequest
	closing  chan struct{}
	done     chan struct{}
	closeMu  sync.Once
}

// writeRequest is one caller's write. check runs first and may refuse the
// write without changing anything; apply must not fail halfway.
type writeRequest struct {
	check func(tx *bolt.Tx) error
	apply func(tx *bolt.Tx) error
	done  chan error
}

var _ Store = (*Bolt)(nil)

// OpenBolt opens (or creates, mode 0600) the store file at path.
func OpenBolt(path string) (*Bolt, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// Only a new file needs its buckets: an empty write would still cost
	// a transaction's two fsyncs at every start.
	var ready bool
	_ = db.View(func(tx *bolt.Tx) error {
		ready = tx.Bucket(bucketInboxes) != nil && tx.Bucket(bucketEmails) != nil
		return nil
	})
	if !ready {
		if err := createBuckets(db); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("initialise store %s: %w", path, err)
		}
	}
	b := &Bolt{
		db:       db,
		requests: make(chan *writeRequest, maxGroup),
		closing:  make(chan struct{}),
		done:     make(chan struct{}),
	}
	go b.commitLoop()
	return b, nil
}

// createBuckets creates the store's buckets in a new file.
func createBuckets(db *bolt.DB) error {
	return db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketInboxes, bucketEmails} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
}

// commitLoop takes the first waiting write, gathers every other write
// already queued, and commits them together.
func (b *Bolt) commitLoop() {
	defer close(b.done)
	group := make([]*writeRequest, 0, maxGroup)
	for {
		select {
		case <-b.closing:
			b.failQueued()
			return
		case first := <-b.requests:
			group = append(group[:0], first)
		gather:
			for len(group) < maxGroup {
				select {
				case r := <-b.requests:
					group = append(group, r)
				default:
					break gather
				}
			}
			b.commitGroup(group)
		}
	}
}

func (b *Bolt) failQueued() {
	for {
		select {
		case r := <-b.requests:
			r.done <- ErrClosed
		default:
			return
		}
	}
}

func (b *Bolt) commitGroup(group []*writeRequest) {
	results := make([]error, len(group))
	err := b.db.Update(func(tx *bolt.Tx) error {
		for i, r := range group {
			if r.check != nil {
				if results[i] = r.check(tx); results[i] != nil {
					continue
				}
			}
			if err := r.apply(tx); err != nil {
				return err
			}
		}
		return nil
	})
	for i, r := range group {
		if err != nil {
			r.done <- fmt.Errorf("commit: %w", err)
			continue
		}
		r.done <- results[i]
	}
}

// write queues a request and waits until it is committed.
func (b *Bolt) write(ctx context.Context, check, apply func(tx *bolt.Tx) error) error {
	r := &writeRequest{check: check, apply: apply, done: make(chan error, 1)}
	select {
	case <-b.closing:
		return ErrClosed
	default:
	}
	select {
	case <-b.closing:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	case b.requests <- r:
	}
	select {
	case err := <-r.done:
		return err
	case <-b.done:
		// The committer has stopped; it answered or failed every request
		// it took, so a request still unanswered was never applied.
		select {
		case err := <-r.done:
			return err
		default:
			return ErrClosed
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close implements Store: it stops the committer (queued writes fail with
// ErrClosed) and closes the file.
func (b *Bolt) Close() error {
	var err error
	b.closeMu.Do(func() {
		close(b.closing)
		<-b.done
		err = b.db.Close()
	})
	return err
}
