package bolt_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"sandview/server/store"
	"sandview/server/store/bolt"
)

// logSyncs opens a store whose log records wait up to syncEvery for their
// sync (and which checkpoints only when its log is full, before a read
// and at Close) and returns it, its log's path and, for each sync of the
// log until the test ends, how many records it found and when it began (a
// sync of an empty log, as the log's creation and a checkpoint make, is
// not reported).
func logSyncs(t *testing.T, syncEvery time.Duration) (db *bolt.Store, log string, syncs <-chan logSync) {
	t.Helper()
	synced := make(chan logSync, 64)
	path := filepath.Join(t.TempDir(), "s.db")
	var mu sync.Mutex
	done := false
	db, err := bolt.OpenWatchingLogSyncs(path, syncEvery, func(f *os.File, sync func(*os.File) error) error {
		at := time.Now()
		n, err := bolt.LogRecords(f.Name())
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if n > 0 && !done {
			select {
			case synced <- logSync{records: n, at: at}:
			default:
				t.Errorf("more than %d syncs of the log", cap(synced))
			}
		}
		return sync(f)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mu.Lock()
		done = true
		mu.Unlock()
		_ = db.Close()
	})
	return db, path + ".wal", synced
}

type logSync struct {
	records int
	at      time.Time
}

// TestBoltAnswersWithoutSyncingEachRecord: writes are answered once their
// records are written to the log (a killed process loses nothing the
// kernel holds), without an fdatasync each: with syncEvery an hour, none
// is made while they come.
func TestBoltAnswersWithoutSyncingEachRecord(t *testing.T) {
	ctx := context.Background()
	db, log, syncs := logSyncs(t, time.Hour)
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	const writers = 8
	written := make(chan error, writers)
	for i := range writers {
		go func() { written <- db.Commit(ctx, store.Batch{Put: []*store.Email{email("h", i+1)}}) }()
	}
	for range writers {
		if err := <-written; err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 { // one at a time: a record each
		if err := db.Commit(ctx, store.Batch{Put: []*store.Email{email("h", writers+i+1)}}); err != nil {
			t.Fatal(err)
		}
	}
	if records, err := bolt.LogRecords(log); err != nil || records < 5 {
		t.Fatalf("the log holds %d records (%v); want one for the inbox, at least one for the 8 writers, one for each of the 3 after", records, err)
	}
	select {
	case s := <-syncs:
		t.Fatalf("the log was synced with %d records before any waited an hour", s.records)
	default:
	}
}

// TestBoltSyncsTheLogWithinSyncEvery: the records not yet synced are
// synced together once the oldest is syncEvery old, with the committer
// otherwise idle (no later write or checkpoint brings the sync), and not
// before.
func TestBoltSyncsTheLogWithinSyncEvery(t *testing.T) {
	const syncEvery = 50 * time.Millisecond
	ctx := context.Background()
	db, _, syncs := logSyncs(t, syncEvery)
	first := time.Now()
	const writes = 3
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	for i := range writes - 1 {
		if err := db.Commit(ctx, store.Batch{Put: []*store.Email{email("h", i+1)}}); err != nil {
			t.Fatal(err)
		}
	}
	for n := 0; n < writes; {
		select {
		case s := <-syncs:
			if n == 0 && s.at.Sub(first) < syncEvery {
				t.Fatalf("the first sync came %v after the first write began, before %v", s.at.Sub(first), syncEvery)
			}
			if s.records <= n {
				t.Fatalf("a sync found %d records after one found %d: it synced none", s.records, n)
			}
			n = s.records
		case <-time.After(30 * time.Second):
			t.Fatalf("the log's records were not synced (the last sync found %d of %d)", n, writes)
		}
	}
}

// TestBoltKeepsTheRecordsBeforeOneLost: a power cut can lose any of the
// records not yet synced, not only the last (the kernel writes the log's
// pages back in no set order). The log then ends at the first record
// lost: every record before it is kept, and none after it, even those
// that reached the disk whole, so what is kept is the writes up to a
// point, in order. (A lost record that leaves zeros ends the log as its
// end does; one that leaves an earlier epoch's bytes fails its checksum,
// as TestBoltDropsTornLastRecord's do.)
func TestBoltKeepsTheRecordsBeforeOneLost(t *testing.T) {
	path, kept, deleted := crashCopy(t)
	starts, err := bolt.LogRecordStarts(path + ".wal")
	if err != nil || len(starts) != 8 {
		t.Fatalf("records at %v (%v); want 8: the inbox, 5 emails, a delete and a read flag", starts, err)
	}
	// The fourth record, the third email, never reached the disk: its
	// blocks still hold the zeros the log was filled with.
	f, err := os.OpenFile(path+".wal", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, starts[4]-starts[3]), starts[3]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	db, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids, err := db.IDs(context.Background(), "h")
	want := []string{deleted.ID, kept[0].ID} // the delete and the read flag came after
	if err != nil || !slices.Equal(ids, want) {
		t.Fatalf("after the power cut: ids %v, %v; want %v", ids, err, want)
	}
	if e, err := db.Email(context.Background(), kept[0]); err != nil || e.IsRead {
		t.Fatalf("email %s after the power cut: %+v, %v; want it unread", kept[0].ID, e, err)
	}
}
