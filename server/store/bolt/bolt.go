package bolt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
	"sandview/server/store/memory"
)

// Bucket layout: inboxes/<hash> = JSON Inbox; emails/<hash>/<id> = encoded
// store.Email (see encodeEmail); signatures/<hash>/<id> the signatures
// made after it was put (signatures.go); counts/<hash> and unsigned/… the
// counters the leader's work reads (counts.go).
var (
	bucketInboxes = []byte("inboxes")
	bucketEmails  = []byte("emails")
)

// maxGroup bounds how many queued writes share one transaction.
const maxGroup = 512

// maxKeptRecord bounds the record buffer kept for the next group.
const maxKeptRecord = 1 << 20

// The committer keeps one bbolt write transaction open across group
// commits; a checkpoint commits it (bbolt syncs the file as it commits, so
// the file is always whole) and empties the write-ahead log. A checkpoint
// follows a group commit that leaves the log at checkpointBytes or more,
// comes checkpointIdle after the last write otherwise, and before a read
// that lists (a read sees every write that has returned; a point read
// runs in the open transaction instead, see view). A checkpoint stops
// every write while the file is written and synced (three fdatasyncs and
// the pages of every change since the last), so it waits for a pause:
// the log holds a burst of about 1,200 small encrypted mails (6.5 KB
// each) and their signatures (6.7 KB) before one falls amid the burst. A replay
// after a crash reads at most that much; the open transaction holds as
// much in memory.
const (
	checkpointBytes = 16 << 20
	checkpointIdle  = 100 * time.Millisecond
)

// logSyncEvery bounds how long an acknowledged write may wait in the
// kernel's cache: the committer fdatasyncs the log's records together
// once the oldest not yet synced is this old (or sooner, at a
// checkpoint), so a power cut or a kernel crash loses at most the writes
// of the last second; a killed process loses none. One sync a group, as
// before, took half the rate of encrypted ingest on two cores: each
// fdatasync costs the process CPU in the kernel (docs/performance.md).
const logSyncEvery = time.Second

// Store is a durable store.Store in one bbolt file and its write-ahead log.
// Writes from concurrent callers are grouped by a committer goroutine and
// made in its open transaction; a group's changes are appended to the log
// as one record, and each call returns once that record is written; the
// committer syncs the records within syncEvery. The
// transaction commits at checkpoints, synced as bbolt always commits: a
// crash leaves the file as of the last checkpoint and the log holding
// every write since (a power cut, every write but those of the last
// syncEvery).
type Store struct {
	// Chaos keeps the chaos configs and the greylisting state in memory,
	// as the reference does (lost on restart).
	memory.Chaos
	// Webhooks keeps the webhooks and their delivery queue in memory and,
	// through its journal, in the file (webhooks.go).
	memory.Webhooks
	// Solo: one process alone writes the file (it holds its lock) and
	// leads; cluster is its work as the leader (cluster.go).
	store.Solo
	cluster
	db       *bbolt.DB
	wal      *wal
	requests chan *writeRequest
	// settles are the reads waiting for a checkpoint (see settle).
	settles chan chan error
	closing chan struct{}
	done    chan struct{}
	closeMu sync.Once
	// tx is the committer's open transaction, nil between a checkpoint
	// and the next write; pending are the log records made in it.
	tx      *bbolt.Tx
	pending [][]byte
	// dirty says a transaction is open: set by the committer before it
	// answers a write, cleared after the checkpoint (see settle).
	dirty atomic.Bool
	// broken is the error that stopped writes: a group whose changes
	// could not be made durable, after which the file and the log may
	// disagree (only the committer touches it).
	broken error
	// record is the buffer of the group's log frame, kept between groups.
	record []byte
	idle   time.Duration
	// syncEvery is how long a record may wait for its fdatasync.
	syncEvery time.Duration
	log       *slog.Logger
}

var _ store.Store = (*Store)(nil)

// Open opens (or creates, mode 0600) the store file at path and its
// write-ahead log (path + ".wal"), replaying the log into the file, and
// moves into it the webhooks of an earlier release (its webhooks.db
// beside it, or its records in the file: migrate.go). A new
// store costs one fdatasync: its buckets are made by the first write.
// log receives the replay's warnings (nil: none are logged).
func Open(path string, log *slog.Logger) (*Store, error) {
	return open(path, log, checkpointIdle, logSyncEvery, fdatasync)
}

// open is Open with the pause in writes after which the store
// checkpoints, how long a log record may wait for its sync, and the sync
// of the log's data.
func open(path string, log *slog.Logger, idle, syncEvery time.Duration, syncData func(*os.File) error) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The freelist is kept in the file (bbolt's default): an open reads it
	// instead of walking every page of the file to rebuild it; the counters
	// (counts.go) are built first, as a replay below keeps them up to date.
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: 2 * time.Second, FreelistType: bbolt.FreelistMapType})
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	var w *wal
	var records [][]byte
	err = buildCounts(db)
	if err == nil {
		w, records, err = openWAL(path+".wal", log, syncData)
	}
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
	b := &Store{
		db:        db,
		wal:       w,
		idle:      idle,
		syncEvery: syncEvery,
		log:       log,
		requests:  make(chan *writeRequest, maxGroup),
		settles:   make(chan chan error),
		closing:   make(chan struct{}),
		done:      make(chan struct{}),
	}
	b.cluster = cluster{b}
	hooks := webhookFile{b}
	b.Exists = inboxLookup{b}.holds
	b.Journal = hooks.journal
	go b.commitLoop()
	err = hooks.migrateLegacyWebhooks(filepath.Dir(path))
	if err == nil {
		err = hooks.migrateWebhookRecords()
	}
	if err == nil {
		err = hooks.loadWebhooks(context.Background())
	}
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

// settle waits for a checkpoint, so that a read that follows sees every
// write that has returned; it returns at once when no transaction is open.
func (b *Store) settle(ctx context.Context) error {
	if !b.dirty.Load() {
		return nil
	}
	settled := make(chan error, 1)
	select {
	case b.settles <- settled:
	case <-b.done:
		return store.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-settled:
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// view runs fn on what the store holds, every write that has returned
// included, without waiting for a checkpoint: in a read-only transaction
// when no write is pending, else in the committer's open transaction,
// with the writes queued beside it. fn must copy what it keeps and be
// quick (the writes grouped with it wait for it): a point read.
func (b *Store) view(ctx context.Context, fn func(tx *bbolt.Tx) error) error {
	if !b.dirty.Load() {
		return b.db.View(fn)
	}
	return b.write(ctx, fn, func(*changes) error { return nil })
}

// write queues a request and waits until it is committed.
func (b *Store) write(ctx context.Context, check func(tx *bbolt.Tx) error, apply func(c *changes) error) error {
	return b.submit(ctx, check, apply)()
}

// Close implements Store: it stops the committer (queued writes fail with
// store.ErrClosed), checkpoints and closes the files.
func (b *Store) Close() error {
	var err error
	b.closeMu.Do(func() {
		close(b.closing)
		<-b.done
		err = errors.Join(b.wal.close(), b.db.Close())
	})
	return err
}
