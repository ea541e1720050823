package bolt_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
	"sandview/server/store/bolt"
)

// copyFile copies src to dst as it is now (an open store's file, as a
// crash would leave it).
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// openLive opens a store at path that checkpoints only when its log is
// full, before a read and at Close (so that a test can copy its files
// while the log holds the writes); it is closed when the test ends.
func openLive(t *testing.T, path string) *bolt.Store {
	t.Helper()
	db, err := bolt.OpenWithoutIdleCheckpoint(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// crashCopy writes to a store and returns the path of a copy of its
// files as a crash between the writes' acknowledgement and the next
// checkpoint leaves them: the bbolt file as it was before the emails
// (it was never synced after them) and the log holding every write. It
// returns the keys of the emails committed, and of one deleted after.
func crashCopy(t *testing.T) (path string, kept []store.EmailKey, deleted store.EmailKey) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	db := openLive(t, live)
	path = filepath.Join(dir, "crashed.db")
	copyFile(t, live, path) // the file before any write
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := db.Commit(ctx, store.Batch{Put: []*store.Email{email("h", i+1)}}); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, store.EmailKey{InboxHash: "h", ID: email("h", i+1).ID})
	}
	deleted, kept = kept[0], kept[1:]
	if err := db.DeleteEmail(ctx, deleted); err != nil {
		t.Fatal(err)
	}
	if err := db.MarkRead(ctx, kept[0]); err != nil {
		t.Fatal(err)
	}
	copyFile(t, live+".wal", path+".wal")
	return path, kept, deleted
}

// checkStored fails unless the store at path holds exactly the emails
// kept, the first read, and none deleted.
func checkStored(t *testing.T, path string, log *slog.Logger, kept []store.EmailKey, deleted store.EmailKey) {
	t.Helper()
	ctx := context.Background()
	db, err := bolt.Open(path, log)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids, err := db.IDs(ctx, "h")
	if err != nil || len(ids) != len(kept) {
		t.Fatalf("after the crash: ids %v, %v; want %d", ids, err, len(kept))
	}
	for i, k := range kept {
		e, err := db.Email(ctx, k)
		if err != nil {
			t.Fatalf("email %s lost: %v", k.ID, err)
		}
		if e.IsRead != (i == 0) || string(e.Raw) != "raw message" {
			t.Fatalf("email %s after the crash: %+v", k.ID, e)
		}
	}
	if _, err := db.Email(ctx, deleted); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted email %s back after the crash: %v", deleted.ID, err)
	}
}

// TestBoltReplaysLogAfterCrash: every acknowledged write is in the store
// after a crash that left the bbolt file without them, and replaying the
// log again (a crash during the first replay's checkpoint) changes
// nothing.
func TestBoltReplaysLogAfterCrash(t *testing.T) {
	path, kept, deleted := crashCopy(t)
	wal, err := os.ReadFile(path + ".wal")
	if end, _ := bolt.LogEnd(path + ".wal"); err != nil || end == bolt.LogHeader {
		t.Fatalf("the crash left no record in the log: %v", err)
	}
	checkStored(t, path, nil, kept, deleted)
	if end, err := bolt.LogEnd(path + ".wal"); err != nil || end != bolt.LogHeader {
		t.Fatalf("the log after replaying it ends at %d (%v), want it empty", end, err)
	}
	// Replayed over the file that holds it already.
	if err := os.WriteFile(path+".wal", wal, 0o600); err != nil {
		t.Fatal(err)
	}
	checkStored(t, path, nil, kept, deleted)
}

// TestBoltDropsTornLastRecord: a last record cut short (its append was
// never finished, so never acknowledged) is dropped with a warning, and
// every record before it is kept.
func TestBoltDropsTornLastRecord(t *testing.T) {
	path, kept, deleted := crashCopy(t)
	// A torn record, where the log ends: a frame header announcing more
	// than the file holds, and a record failing its checksum.
	for name, tail := range map[string][]byte{
		"cut short":    {0, 0, 0, 64, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1},
		"bad checksum": {3, 0, 0, 0, 9, 9, 9, 9, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 'h'},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			torn := filepath.Join(dir, "torn.db")
			copyFile(t, path, torn)
			copyFile(t, path+".wal", torn+".wal")
			end, err := bolt.LogEnd(torn + ".wal")
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(torn+".wal", os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(tail, end); err != nil {
				t.Fatal(err)
			}
			f.Close()
			var logged bytes.Buffer
			checkStored(t, torn, slog.New(slog.NewTextHandler(&logged, nil)), kept, deleted)
			if !strings.Contains(logged.String(), "torn record") || !strings.Contains(logged.String(), fmt.Sprintf("offset=%d", end)) {
				t.Fatalf("no warning of the torn record: %q", logged.String())
			}
		})
	}
}

// TestBoltCheckpoints: the log is emptied once it holds
// bolt.CheckpointBytes (16 MiB), and at Close, so it neither grows without
// bound nor is replayed after a clean stop.
func TestBoltCheckpoints(t *testing.T) {
	const size = bolt.CheckpointBytes / 16
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	db := openLive(t, path)
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	most := int64(0)
	for i := range bolt.CheckpointBytes/size + bolt.CheckpointBytes/size/4 {
		e := email("h", i+1)
		e.Raw = bytes.Repeat([]byte("x"), size)
		if err := db.Commit(ctx, store.Batch{Put: []*store.Email{e}}); err != nil {
			t.Fatal(err)
		}
		end, err := bolt.LogEnd(path + ".wal")
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, end)
	}
	if most > bolt.CheckpointBytes+2*size {
		t.Fatalf("the log reached %d bytes without a checkpoint", most)
	}
	if end, _ := bolt.LogEnd(path + ".wal"); end == bolt.LogHeader || end >= most {
		t.Fatalf("after 1.25 times the checkpoint size of mail the log ends at %d (at most %d): no checkpoint, or nothing since", end, most)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if end, err := bolt.LogEnd(path + ".wal"); err != nil || end != bolt.LogHeader {
		t.Fatalf("the log after Close ends at %d (%v), want it empty", end, err)
	}
}

// TestBoltFileChangesOnlyAtCheckpoints: writes that have returned but not
// been checkpointed are in the log only; the bbolt file is still the one
// the last checkpoint committed, whole (bbolt's check finds nothing), so
// a power cut that loses what was not synced leaves a file that opens,
// and the log gives the writes back. Once a read asks, they are in the
// file.
func TestBoltFileChangesOnlyAtCheckpoints(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	db := openLive(t, live)
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.IDs(ctx, "h"); err != nil { // a read: a checkpoint with the inbox
		t.Fatal(err)
	}
	for i := range 5 {
		if err := db.Commit(ctx, store.Batch{Put: []*store.Email{email("h", i+1)}}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(path string) []string {
		t.Helper()
		copied := filepath.Join(t.TempDir(), "copy.db")
		copyFile(t, path, copied)
		raw, err := bbolt.Open(copied, 0o600, &bbolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("the file between checkpoints does not open: %v", err)
		}
		defer raw.Close()
		var out []string
		err = raw.View(func(tx *bbolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			mb := tx.Bucket([]byte("emails")).Bucket([]byte("h"))
			return mb.ForEach(func(k, _ []byte) error { out = append(out, string(k)); return nil })
		})
		if err != nil {
			t.Fatalf("the file between checkpoints: %v", err)
		}
		return out
	}
	if got := ids(live); len(got) != 0 {
		t.Fatalf("the file holds %v before a checkpoint; want only what the last one committed", got)
	}
	if got, err := db.IDs(ctx, "h"); err != nil || len(got) != 5 {
		t.Fatalf("a read after the writes: %v, %v", got, err)
	}
	if got := ids(live); len(got) != 5 {
		t.Fatalf("the file after the read's checkpoint holds %v", got)
	}
}
