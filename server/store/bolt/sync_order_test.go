package bolt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"sandview/server/store"
	"sandview/server/store/bolt"
)

// TestBoltAnswersBeforeTheSyncAndSyncsBeforeTheNextRecord: a write is
// answered once its record is written to the log, without waiting for
// the log's fdatasync (a killed process loses nothing the kernel holds),
// and each record is synced before the next is written, so that a power
// cut can lose at most the last group answered.
func TestBoltAnswersBeforeTheSyncAndSyncsBeforeTheNextRecord(t *testing.T) {
	ctx := context.Background()
	syncing := make(chan int) // the records in the log at each sync of one
	release := make(chan struct{})
	stop := make(chan struct{})
	db, err := bolt.OpenWatchingLogSyncs(filepath.Join(t.TempDir(), "s.db"), func(f *os.File, sync func(*os.File) error) error {
		n, err := bolt.LogRecords(f.Name())
		if err != nil {
			return err
		}
		if n > 0 {
			select {
			case syncing <- n:
				select {
				case <-release:
				case <-stop:
				}
			case <-stop:
			}
		}
		return sync(f)
	})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stopWatching := func() { once.Do(func() { close(stop) }) }
	defer db.Close()
	defer stopWatching() // before Close, whose checkpoint syncs

	first := make(chan error, 1)
	go func() { first <- db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h"}) }()
	if n := <-syncing; n != 1 {
		t.Fatalf("the first sync found %d records in the log, want 1", n)
	}
	select {
	case err := <-first:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write was not answered while its record's sync had not returned: it waits for the sync")
	}

	// While that sync has not returned, writes queue up; each later sync
	// must find exactly one record more than the one before.
	const writers = 8
	written := make(chan error, writers)
	for i := range writers {
		go func() { written <- db.Commit(ctx, store.Batch{Put: []*store.Email{email("h", i+1)}}) }()
	}
	last, answered := 1, 0
	release <- struct{}{}
	for answered < writers {
		select {
		case n := <-syncing:
			if n != last+1 {
				t.Fatalf("a sync found %d records in the log after one of %d: a record was written before the one before it was synced", n, last)
			}
			last = n
			release <- struct{}{}
		case err := <-written:
			if err != nil {
				t.Fatal(fmt.Errorf("write %d: %w", answered+1, err))
			}
			answered++
		}
	}
	stopWatching() // the last group's sync, and the checkpoint's, go on alone
	ids, err := db.IDs(ctx, "h")
	if err != nil || len(ids) != writers {
		t.Fatalf("ids %v, %v; want %d", ids, err, writers)
	}
}
