package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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

// maxKeptRecord bounds the record buffer kept for the next group.
const maxKeptRecord = 1 << 20

// A checkpoint (the bbolt file synced, then the write-ahead log emptied)
// follows a group commit that leaves the log at checkpointBytes or more,
// and comes checkpointIdle after the last write otherwise. Between two,
// the file is written unsynced: short intervals keep what a power cut can
// damage small, and cost one fdatasync of the file every few hundred
// mails.
const (
	checkpointBytes = 1 << 20
	checkpointIdle  = time.Second
)

// Bolt is a durable Store in one bbolt file and its write-ahead log.
// Writes from concurrent callers are grouped by a committer goroutine into
// one transaction, whose changes are appended to the log as one record:
// each call returns once that record is on disk (one fdatasync per group).
// The bbolt file itself is opened NoSync and synced at checkpoints.
type Bolt struct {
	db       *bolt.DB
	wal      *wal
	requests chan *writeRequest
	closing  chan struct{}
	done     chan struct{}
	closeMu  sync.Once
	// broken is the error that stopped writes: a group whose changes
	// could not be made durable, after which the file and the log may
	// disagree (only the committer touches it).
	broken error
	// record is the buffer of the group's log frame, kept between groups.
	record []byte
	idle   time.Duration
	log    *slog.Logger
}

// writeRequest is one caller's write. check runs first and may refuse the
// write without changing anything; apply must not fail halfway.
type writeRequest struct {
	check func(tx *bolt.Tx) error
	apply func(c *changes) error
	done  chan error
}

var _ Store = (*Bolt)(nil)

// OpenBolt opens (or creates, mode 0600) the store file at path and its
// write-ahead log (path + ".wal"), replaying the log into the file. A new
// store costs one fdatasync: its buckets are made by the first write.
// log receives the replay's warnings (nil: none are logged).
func OpenBolt(path string, log *slog.Logger) (*Bolt, error) {
	return openBolt(path, log, checkpointIdle)
}

// openBolt is OpenBolt with the pause in writes after which the log is
// checkpointed.
func openBolt(path string, log *slog.Logger, idle time.Duration) (*Bolt, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoSync: true, NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	w, records, err := openWAL(path+".wal", log)
	if err == nil && len(records) > 0 {
		log.Info("store: replaying the write-ahead log (the last run stopped without a checkpoint)", "log", w.path, "records", len(records))
		if err = replay(db, w, records); err != nil {
			_ = w.close()
		}
	}
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	b := &Bolt{
		db:       db,
		wal:      w,
		idle:     idle,
		log:      log,
		requests: make(chan *writeRequest, maxGroup),
		closing:  make(chan struct{}),
		done:     make(chan struct{}),
	}
	go b.commitLoop()
	return b, nil
}

// replay makes the log's changes in the file in one transaction and
// checkpoints.
func replay(db *bolt.DB, w *wal, records [][]byte) error {
	err := db.Update(func(tx *bolt.Tx) error {
		c := &changes{tx: tx}
		for _, r := range records {
			if err := c.replay(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("replay write-ahead log: %w", err)
	}
	return checkpoint(db, w)
}

// checkpoint makes the file hold every change durably, then empties the
// log.
func checkpoint(db *bolt.DB, w *wal) error {
	if w.empty() {
		return nil
	}
	if err := db.Sync(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return w.reset()
}

// commitLoop takes the first waiting write, gathers every other write
// already queued, and commits them together; it checkpoints when the log
// has grown or writes have paused, and at Close.
func (b *Bolt) commitLoop() {
	defer close(b.done)
	group := make([]*writeRequest, 0, maxGroup)
	idle := time.NewTimer(b.idle)
	idle.Stop()
	defer idle.Stop()
	for {
		select {
		case <-b.closing:
			b.failQueued()
			b.checkpoint()
			return
		case <-idle.C:
			b.checkpoint()
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
			if b.wal.length() >= checkpointBytes {
				b.checkpoint()
			}
			if !b.wal.empty() {
				idle.Reset(b.idle)
			}
		}
	}
}

// checkpoint checkpoints unless writes have stopped; a failure stops
// them (the log keeps every change the file may have lost).
func (b *Bolt) checkpoint() {
	if b.broken != nil {
		return
	}
	if err := checkpoint(b.db, b.wal); err != nil {
		b.broken = err
		b.log.Error("store: writes stopped", "err", err)
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

// commitGroup makes the group's writes in one transaction and appends
// their changes to the log, synced, before the transaction commits: a
// failure before the append leaves neither the file nor the log changed.
// A failure of the append or of the commit after it may leave a record
// the file lacks on disk (a restart replays it), so writes stop.
func (b *Bolt) commitGroup(group []*writeRequest) {
	if b.broken != nil {
		for _, r := range group {
			r.done <- fmt.Errorf("commit: %w", b.broken)
		}
		return
	}
	results := make([]error, len(group))
	logged := false
	// The record is built after room for its frame header.
	c := &changes{record: append(b.record[:0], make([]byte, walFrameHeader)...)}
	err := b.db.Update(func(tx *bolt.Tx) error {
		c.tx = tx
		for i, r := range group {
			if r.check != nil {
				if results[i] = r.check(tx); results[i] != nil {
					continue
				}
			}
			if err := r.apply(c); err != nil {
				return err
			}
		}
		if len(c.record) == walFrameHeader {
			return nil
		}
		// From here on a failure may leave the record on disk.
		logged = true
		return b.wal.append(c.record)
	})
	if cap(c.record) <= maxKeptRecord {
		b.record = c.record[:0]
	}
	if err != nil && logged {
		b.broken = err
		b.log.Error("store: writes stopped", "err", err)
	}
	for i, r := range group {
		if err != nil {
			r.done <- fmt.Errorf("commit: %w", err)
			continue
		}
		r.done <- results[i]
	}
}

// write queues a request and waits until it is committed.
func (b *Bolt) write(ctx context.Context, check func(tx *bolt.Tx) error, apply func(c *changes) error) error {
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
// ErrClosed), checkpoints and closes the files.
func (b *Bolt) Close() error {
	var err error
	b.closeMu.Do(func() {
		close(b.closing)
		<-b.done
		err = errors.Join(b.wal.close(), b.db.Close())
	})
	return err
}
