package bolt_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"sandview/server/store"
)

// TestBoltAbandonedReadIsNotRunLater: a point read whose context ends
// while it waits for the committer returns ctx's error, and the committer
// does not run it afterwards, writing into a result its caller has
// already read (run with -race: make stress found this as a data race
// when the signer's reads were cancelled at shutdown).
func TestBoltAbandonedReadIsNotRunLater(t *testing.T) {
	ctx := context.Background()
	db := openLive(t, filepath.Join(t.TempDir(), "test.db"))
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	e := email("h", 1)
	if err := db.Commit(ctx, store.Batch{Put: []*store.Email{e}}); err != nil {
		t.Fatal(err)
	}
	// The store holds an open transaction now (no idle checkpoint), so a
	// point read goes through the committer.
	key := store.EmailKey{InboxHash: "h", ID: e.ID}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	answered := 0
	for range 500 {
		got, err := db.Email(cancelled, key)
		switch {
		case err == nil:
			if got == nil || got.ID != e.ID {
				t.Fatalf("read %+v without an error", got)
			}
			answered++
		case errors.Is(err, context.Canceled):
			if got != nil {
				t.Fatalf("a cancelled read returned %+v", got)
			}
		default:
			t.Fatalf("read: %v", err)
		}
	}
	// Reads still work, and each ran at most once: a last one with a live
	// context is answered.
	if got, err := db.Email(ctx, key); err != nil || got.ID != e.ID {
		t.Fatalf("read after the cancelled ones: %+v %v", got, err)
	}
	t.Logf("%d of 500 cancelled reads were answered all the same", answered)
}
