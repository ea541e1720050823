package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/server/store"
	"sandview/server/store/pgtest"
	"sandview/server/store/postgres"
)

// pg is the PostgreSQL server of this package's tests.
var pg *pgtest.Server

func TestMain(m *testing.M) { pgtest.Main(m, &pg, pgtest.Options{}) }

// implementations opens each Store implementation for t: the shared
// conformance suite runs against all three.
func implementations(t *testing.T) map[string]func(t *testing.T) store.Store {
	return map[string]func(t *testing.T) store.Store{
		"memory": func(t *testing.T) store.Store { return store.NewMemory() },
		"bolt": func(t *testing.T) store.Store {
			db, err := store.OpenBolt(filepath.Join(t.TempDir(), "test.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			return db
		},
		"postgres": func(t *testing.T) store.Store {
			db, err := postgres.Open(context.Background(), pg.NewDatabase(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			return db
		},
	}
}

func email(hash string, n int) *store.Email {
	return &store.Email{
		ID:         fmt.Sprintf("%016x", n),
		InboxHash:  hash,
		ReceivedAt: time.Unix(int64(n), 0).UTC(),
		Metadata:   []byte(fmt.Sprintf(`{"n":%d}`, n)),
		Parsed:     []byte("parsed"),
		Raw:        []byte("raw message"),
	}
}

func TestStoreContract(t *testing.T) {
	ctx := context.Background()
	for name, open := range implementations(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			defer s.Close()
			inbox := store.Inbox{Address: "a@sandbox.test", Hash: "h1", ExpiresAt: time.Unix(100, 0).UTC(), CreatedAt: time.Unix(1, 0).UTC(), Owner: "SHA256:owner"}
			if err := s.PutInbox(ctx, inbox); err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(ctx, store.Batch{Put: []*store.Email{email("missing", 1)}}); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("put into a missing inbox: %v", err)
			}
			for i := 1; i <= 3; i++ {
				if err := s.Commit(ctx, store.Batch{Put: []*store.Email{email("h1", i)}}); err != nil {
					t.Fatal(err)
				}
			}
			list, err := s.Emails(ctx, "h1", false, store.Page{})
			if err != nil || len(list) != 3 || list[0].ID != email("h1", 3).ID || list[0].Parsed != nil || string(list[0].Metadata) != `{"n":3}` {
				t.Fatalf("list %v %+v", err, list)
			}
			if err := s.MarkRead(ctx, store.EmailKey{InboxHash: "h1", ID: email("h1", 2).ID}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Email(ctx, store.EmailKey{InboxHash: "h1", ID: email("h1", 2).ID})
			if err != nil || !got.IsRead || string(got.Raw) != "raw message" || !got.ReceivedAt.Equal(time.Unix(2, 0)) {
				t.Fatalf("email %v %+v", err, got)
			}
			if err := s.Commit(ctx, store.Batch{Delete: []store.EmailKey{{InboxHash: "h1", ID: email("h1", 1).ID}}, Put: []*store.Email{email("h1", 4)}}); err != nil {
				t.Fatal(err)
			}
			ids, _ := s.IDs(ctx, "h1")
			if fmt.Sprint(ids) != fmt.Sprint([]string{email("", 2).ID, email("", 3).ID, email("", 4).ID}) {
				t.Fatalf("ids %v", ids)
			}
			if err := s.DeleteEmail(ctx, store.EmailKey{InboxHash: "h1", ID: "nope"}); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("delete unknown: %v", err)
			}
			if err := s.MarkRead(ctx, store.EmailKey{InboxHash: "h1", ID: "nope"}); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("mark unknown: %v", err)
			}
			var total int64
			if err := s.ForEachEmail(ctx, func(info store.EmailInfo) error { total += info.Size; return nil }); err != nil {
				t.Fatal(err)
			}
			if want := 3 * email("h1", 2).Size(); total != want {
				t.Fatalf("sizes %d, want %d", total, want)
			}
			inboxes, _ := s.Inboxes(ctx)
			if len(inboxes) != 1 || inboxes[0].Address != inbox.Address || !inboxes[0].ExpiresAt.Equal(inbox.ExpiresAt) || inboxes[0].Owner != inbox.Owner {
				t.Fatalf("inboxes %+v", inboxes)
			}
			if err := s.DeleteInbox(ctx, "h1"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Emails(ctx, "h1", true, store.Page{}); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("emails of a deleted inbox: %v", err)
			}
			if err := s.DeleteInbox(ctx, "h1"); err != nil {
				t.Fatalf("deleting twice: %v", err)
			}
		})
	}
}

// TestBoltKeepsInboxOwner: an inbox's owner is read back after the store
// is closed and opened again, and an inbox without one stays without.
func TestBoltKeepsInboxOwner(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := store.OpenBolt(path, nil)
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
	if db, err = store.OpenBolt(path, nil); err != nil {
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

// TestPagedLists pages through an inbox newest first, by the last ID seen,
// while a newer email arrives and a listed one is deleted.
func TestPagedLists(t *testing.T) {
	ctx := context.Background()
	for name, open := range implementations(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			defer s.Close()
			if err := s.PutInbox(ctx, store.Inbox{Address: "a@sandbox.test", Hash: "h"}); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 7; i++ {
				if err := s.Commit(ctx, store.Batch{Put: []*store.Email{email("h", i)}}); err != nil {
					t.Fatal(err)
				}
			}
			var seen []string
			page := store.Page{Limit: 3}
			for round := 0; ; round++ {
				list, err := s.Emails(ctx, "h", round%2 == 0, page)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range list {
					seen = append(seen, e.ID[len(e.ID)-1:])
				}
				if len(list) < page.Limit {
					break
				}
				page.Before = list[len(list)-1].ID
				if round == 0 {
					batch := store.Batch{Put: []*store.Email{email("h", 8)}, Delete: []store.EmailKey{{InboxHash: "h", ID: email("h", 3).ID}}}
					if err := s.Commit(ctx, batch); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := strings.Join(seen, ""); got != "765421" {
				t.Fatalf("pages listed %s, want 765421", got)
			}
			if list, err := s.Emails(ctx, "h", false, store.Page{Before: email("h", 1).ID}); err != nil || len(list) != 0 {
				t.Fatalf("before the oldest: %v, %v", list, err)
			}
			if list, err := s.Emails(ctx, "h", false, store.Page{Before: "g"}); err != nil || len(list) != 7 {
				t.Fatalf("before an ID after the newest: %d emails, %v", len(list), err)
			}
		})
	}
}

// openBoltWithInbox opens a bbolt store at path holding the inbox "h".
func openBoltWithInbox(t *testing.T, path string) *store.Bolt {
	t.Helper()
	db, err := store.OpenBolt(path, nil)
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
	db, err := store.OpenBolt(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids, err := db.IDs(ctx, "h")
	if err != nil || len(ids) != 200 {
		t.Fatalf("after reopening: %d ids, %v", len(ids), err)
	}
}

func TestSetSigned(t *testing.T) {
	ctx := context.Background()
	for name, open := range implementations(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			defer s.Close()
			if err := s.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h"}); err != nil {
				t.Fatal(err)
			}
			e := email("h", 1)
			e.Unsigned = store.PartParsed | store.PartRaw
			e.Parsed, e.Raw = []byte("parsed-unsigned"), []byte("raw-unsigned")
			if err := s.Commit(ctx, store.Batch{Put: []*store.Email{e}}); err != nil {
				t.Fatal(err)
			}
			key := store.EmailKey{InboxHash: "h", ID: e.ID}
			before, err := s.Email(ctx, key)
			if err != nil || before.Unsigned != store.PartParsed|store.PartRaw {
				t.Fatalf("stored: %+v, %v", before, err)
			}
			if err := s.MarkRead(ctx, key); err != nil {
				t.Fatal(err)
			}
			if err := s.SetSigned(ctx, []store.Signed{{Key: key, Parts: store.PartParsed, Parsed: []byte("parsed-signed")}}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Email(ctx, key)
			if err != nil || got.Unsigned != store.PartRaw || string(got.Parsed) != "parsed-signed" || string(got.Raw) != "raw-unsigned" || !got.IsRead {
				t.Fatalf("after signing parsed: %+v, %v", got, err)
			}
			if string(before.Parsed) != "parsed-unsigned" {
				t.Fatal("SetSigned changed an earlier copy")
			}
			var infos []store.EmailInfo
			if err := s.ForEachEmail(ctx, func(info store.EmailInfo) error { infos = append(infos, info); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(infos) != 1 || infos[0].Unsigned != store.PartRaw {
				t.Fatalf("ForEachEmail: %+v", infos)
			}
			gone := store.EmailKey{InboxHash: "h", ID: "gone"}
			otherInbox := store.EmailKey{InboxHash: "nope", ID: e.ID}
			changes := []store.Signed{
				{Key: gone, Parts: store.PartRaw, Raw: []byte("x")},
				{Key: key, Parts: store.PartRaw, Raw: []byte("raw-signed")},
				{Key: otherInbox, Parts: store.PartRaw, Raw: []byte("x")},
			}
			if err := s.SetSigned(ctx, changes); err != nil {
				t.Fatalf("emails gone must be skipped: %v", err)
			}
			list, err := s.Emails(ctx, "h", true, store.Page{})
			if err != nil || len(list) != 1 || list[0].Unsigned != 0 || string(list[0].Raw) != "raw-signed" || string(list[0].Parsed) != "parsed-signed" {
				t.Fatalf("after signing raw: %+v, %v", list, err)
			}
			if _, err := s.Email(ctx, gone); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("signing a missing email created it: %v", err)
			}
		})
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
	db, err := store.OpenBolt(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Email(ctx, store.EmailKey{InboxHash: "h", ID: e.ID})
	if err != nil || got.Unsigned != store.PartRaw || got.IsRead {
		t.Fatalf("after reopening: %+v, %v", got, err)
	}
}
