// Package storetest is the conformance suite of server/store: one set of
// tests every Store implementation (memory, bbolt, PostgreSQL) runs.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"sandview/server/store"
)

// Open opens a new, empty store of the implementation under test; the
// suite closes it.
type Open func(t *testing.T) store.Store

// Run runs the conformance suite: every Store implementation must pass it.
func Run(t *testing.T, open Open) {
	t.Run("Contract", func(t *testing.T) { testContract(t, open) })
	t.Run("PagedLists", func(t *testing.T) { testPagedLists(t, open) })
	t.Run("InboxLookup", func(t *testing.T) { testInboxLookup(t, open) })
	t.Run("EmailHeads", func(t *testing.T) { testEmailHeads(t, open) })
	t.Run("SetSigned", func(t *testing.T) { testSetSigned(t, open) })
	t.Run("Ping", func(t *testing.T) { testPing(t, open) })
	t.Run("Chaos", func(t *testing.T) { testChaos(t, open) })
	t.Run("Webhooks", func(t *testing.T) { testWebhooks(t, open) })
	t.Run("DeliveryQueue", func(t *testing.T) { testDeliveryQueue(t, open) })
	t.Run("Cluster", func(t *testing.T) { testCluster(t, open) })
}

// testPing: an open store answers, a closed one says it is closed.
func testPing(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping an open store: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("ping a closed store: %v, want store.ErrClosed", err)
	}
}

// Email is the test email numbered n in the inbox hash: its ID sorts by n.
func Email(hash string, n int) *store.Email {
	return &store.Email{
		ID:         fmt.Sprintf("%016x", n),
		InboxHash:  hash,
		ReceivedAt: time.Unix(int64(n), 0).UTC(),
		Metadata:   []byte(fmt.Sprintf(`{"n":%d}`, n)),
		Parsed:     []byte("parsed"),
		Raw:        []byte("raw message"),
	}
}

func testContract(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	inbox := store.Inbox{Address: "a@sandbox.test", Hash: "h1", ExpiresAt: time.Unix(100, 0).UTC(), CreatedAt: time.Unix(1, 0).UTC(), Owner: "SHA256:owner"}
	if err := s.PutInbox(ctx, inbox); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, store.Batch{Put: []*store.Email{Email("missing", 1)}}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("put into a missing inbox: %v", err)
	}
	for i := 1; i <= 3; i++ {
		if err := s.Commit(ctx, store.Batch{Put: []*store.Email{Email("h1", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.Emails(ctx, "h1", false, store.Page{})
	if err != nil || len(list) != 3 || list[0].ID != Email("h1", 3).ID || list[0].Parsed != nil || string(list[0].Metadata) != `{"n":3}` {
		t.Fatalf("list %v %+v", err, list)
	}
	if err := s.MarkRead(ctx, store.EmailKey{InboxHash: "h1", ID: Email("h1", 2).ID}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Email(ctx, store.EmailKey{InboxHash: "h1", ID: Email("h1", 2).ID})
	if err != nil || !got.IsRead || string(got.Raw) != "raw message" || !got.ReceivedAt.Equal(time.Unix(2, 0)) {
		t.Fatalf("email %v %+v", err, got)
	}
	if err := s.Commit(ctx, store.Batch{Delete: []store.EmailKey{{InboxHash: "h1", ID: Email("h1", 1).ID}}, Put: []*store.Email{Email("h1", 4)}}); err != nil {
		t.Fatal(err)
	}
	ids, _ := s.IDs(ctx, "h1")
	if fmt.Sprint(ids) != fmt.Sprint([]string{Email("", 2).ID, Email("", 3).ID, Email("", 4).ID}) {
		t.Fatalf("ids %v", ids)
	}
	if err := s.DeleteEmail(ctx, store.EmailKey{InboxHash: "h1", ID: "nope"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete unknown: %v", err)
	}
	if err := s.MarkRead(ctx, store.EmailKey{InboxHash: "h1", ID: "nope"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("mark unknown: %v", err)
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
}

// testPagedLists pages through an inbox newest first, by the last ID seen,
// while a newer email arrives and a listed one is deleted.
func testPagedLists(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	if err := s.PutInbox(ctx, store.Inbox{Address: "a@sandbox.test", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 7; i++ {
		if err := s.Commit(ctx, store.Batch{Put: []*store.Email{Email("h", i)}}); err != nil {
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
			batch := store.Batch{Put: []*store.Email{Email("h", 8)}, Delete: []store.EmailKey{{InboxHash: "h", ID: Email("h", 3).ID}}}
			if err := s.Commit(ctx, batch); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := strings.Join(seen, ""); got != "765421" {
		t.Fatalf("pages listed %s, want 765421", got)
	}
	if list, err := s.Emails(ctx, "h", false, store.Page{Before: Email("h", 1).ID}); err != nil || len(list) != 0 {
		t.Fatalf("before the oldest: %v, %v", list, err)
	}
	if list, err := s.Emails(ctx, "h", false, store.Page{Before: "g"}); err != nil || len(list) != 7 {
		t.Fatalf("before an ID after the newest: %d emails, %v", len(list), err)
	}
}

func testSetSigned(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	if err := s.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	e := Email("h", 1)
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
	if unsigned, err := s.Unsigned(ctx, 0, 10); err != nil || !slices.Equal(unsigned, []store.EmailKey{key}) {
		t.Fatalf("Unsigned with raw still unsigned: %v %v", unsigned, err)
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
}
