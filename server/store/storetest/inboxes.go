package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"sandview/server/store"
)

// testInboxLookup: an inbox is found by hash and by address once put (the
// latest put wins), and neither finds it once deleted.
func testInboxLookup(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	if _, err := s.Inbox(ctx, "h1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("inbox in an empty store: %v, want store.ErrNotFound", err)
	}
	if _, err := s.InboxByAddress(ctx, "a@sandbox.test"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("address in an empty store: %v, want store.ErrNotFound", err)
	}
	a := store.Inbox{Address: "a@sandbox.test", Hash: "h1", CreatedAt: time.Unix(1, 0).UTC(), ExpiresAt: time.Unix(100, 0).UTC()}
	// b's address is a's with a prefix: a lookup must match it whole.
	b := store.Inbox{Address: "ba@sandbox.test", Hash: "h2", CreatedAt: time.Unix(2, 0).UTC(), ExpiresAt: time.Unix(200, 0).UTC(), Owner: "SHA256:owner"}
	for _, in := range []store.Inbox{b, a} {
		if err := s.PutInbox(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	a.ExpiresAt = time.Unix(300, 0).UTC()
	if err := s.PutInbox(ctx, a); err != nil {
		t.Fatal(err)
	}
	for _, want := range []store.Inbox{a, b} {
		got, err := s.Inbox(ctx, want.Hash)
		if err != nil || got.Address != want.Address || !got.ExpiresAt.Equal(want.ExpiresAt) || got.Owner != want.Owner {
			t.Fatalf("inbox %s: %+v, %v, want %+v", want.Hash, got, err, want)
		}
		got, err = s.InboxByAddress(ctx, want.Address)
		if err != nil || got.Hash != want.Hash || !got.ExpiresAt.Equal(want.ExpiresAt) {
			t.Fatalf("inbox at %s: %+v, %v, want %+v", want.Address, got, err, want)
		}
	}
	if _, err := s.InboxByAddress(ctx, "sandbox.test"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a part of an address: %v, want store.ErrNotFound", err)
	}
	if err := s.DeleteInbox(ctx, a.Hash); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Inbox(ctx, a.Hash); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted inbox: %v, want store.ErrNotFound", err)
	}
	if _, err := s.InboxByAddress(ctx, a.Address); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted inbox's address: %v, want store.ErrNotFound", err)
	}
	if got, err := s.InboxByAddress(ctx, b.Address); err != nil || got.Hash != b.Hash {
		t.Fatalf("the other inbox after a deletion: %+v, %v", got, err)
	}
}

// testEmailHeads: heads come without content, in ID order, and emails
// gone (or never stored) are left out.
func testEmailHeads(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	if err := s.PutInbox(ctx, store.Inbox{Address: "a@sandbox.test", Hash: "h1", ExpiresAt: time.Unix(100, 0).UTC()}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, store.Batch{Put: []*store.Email{Email("h1", 1), Email("h1", 2), Email("h1", 3)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteEmail(ctx, store.EmailKey{InboxHash: "h1", ID: Email("h1", 2).ID}); err != nil {
		t.Fatal(err)
	}
	key := func(hash string, n int) store.EmailKey { return store.EmailKey{InboxHash: hash, ID: Email(hash, n).ID} }
	heads, err := s.EmailHeads(ctx, []store.EmailKey{key("h1", 3), key("h1", 2), key("missing", 4), key("h1", 1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != 2 || heads[0].ID != Email("h1", 1).ID || heads[1].ID != Email("h1", 3).ID {
		t.Fatalf("heads %+v, want emails 1 and 3", heads)
	}
	for _, h := range heads {
		if h.Parsed != nil || h.Raw != nil || h.InboxHash != "h1" || len(h.Metadata) == 0 || h.ReceivedAt.IsZero() {
			t.Fatalf("head %+v: want metadata, no content", h)
		}
	}
}
