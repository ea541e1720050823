package bolt_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"sandview/server/store"
	"sandview/server/store/bolt"
	"sandview/server/store/storetest"
)

// TestConformance runs the shared Store suite against a bbolt store.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		db, err := bolt.Open(filepath.Join(t.TempDir(), "test.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

func email(hash string, n int) *store.Email { return storetest.Email(hash, n) }

// TestBoltKeepsInboxOwner: an inbox's owner is read back after the store
// is closed and opened again, and an inbox without one stays without.
func TestBoltKeepsInboxOwner(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	owned := store.Inbox{Address: "a@sandbox.test", Hash: "h1", ExpiresAt: time.Unix(100, 0).UTC(), CreatedAt: time.Unix(1, 0).UTC(), Owner: "SHA256:owner"}
	keyed := store.Inbox{Address: "b@sandbox.test", Hash: "h2", ExpiresAt: time.Unix(100, 0).UTC(), CreatedAt: time.Unix(1, 0).UTC()}
	for _, in := range []store.Inbox{owned, keyed} {
		if err := db.PutInbox(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = bolt.Open(path, nil); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	inboxes, err := db.Inboxes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	for _, in := range inboxes {
		owners[in.Hash] = in.Owner
	}
	if len(owners) != 2 || owners["h1"] != owned.Owner || owners["h2"] != "" {
		t.Fatalf("owners after reopening %v, want h1 %s and h2 none", owners, owned.Owner)
	}
}

// openBoltWithInbox opens a bbolt store at path holding the inbox "h".
func openBoltWithInbox(t *testing.T, path string) *bolt.Store {
	t.Helper()
	db, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutInbox(context.Background(), store.Inbox{Address: "a@x", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestBoltGroupsConcurrentWritesAndPersists(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	db := openBoltWithInbox(t, path)
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- db.Commit(ctx, store.Batch{Put: []*store.Email{email("h", i+1)}})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.PutInbox(ctx, store.Inbox{Hash: "late"}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
	db, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids, err := db.IDs(ctx, "h")
	if err != nil || len(ids) != 200 {
		t.Fatalf("after reopening: %d ids, %v", len(ids), err)
	}
}

func TestBoltKeepsUnsignedAcrossRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	db := openBoltWithInbox(t, path)
	e := email("h", 1)
	e.Unsigned = store.PartRaw
	if err := db.Commit(ctx, store.Batch{Put: []*store.Email{e}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Email(ctx, store.EmailKey{InboxHash: "h", ID: e.ID})
	if err != nil || got.Unsigned != store.PartRaw || got.IsRead {
		t.Fatalf("after reopening: %+v, %v", got, err)
	}
}
