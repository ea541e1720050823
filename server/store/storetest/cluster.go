package storetest

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"sandview/server/store"
)

// testCluster runs the Cluster part of the suite.
func testCluster(t *testing.T, open Open) {
	t.Run("LeadAndSecret", func(t *testing.T) { testLeadAndSecret(t, open) })
	t.Run("ExpireInboxes", func(t *testing.T) { testExpireInboxes(t, open) })
	t.Run("EnforceLimitsPerInbox", func(t *testing.T) { testLimitsPerInbox(t, open) })
	t.Run("EnforceLimitsTotalBytes", func(t *testing.T) { testLimitsTotalBytes(t, open) })
	t.Run("EnforceLimitsCountsFollowChanges", func(t *testing.T) { testLimitsFollowChanges(t, open) })
	t.Run("Unsigned", func(t *testing.T) { testUnsigned(t, open) })
	t.Run("LastEmailID", func(t *testing.T) { testLastEmailID(t, open) })
}

// putInboxes stores inboxes named by their hashes, expiring at expires.
func putInboxes(t *testing.T, s store.Store, expires time.Time, hashes ...string) {
	t.Helper()
	for _, h := range hashes {
		in := store.Inbox{Address: h + "@sandbox.test", Hash: h, CreatedAt: time.Unix(1, 0).UTC(), ExpiresAt: expires}
		if err := s.PutInbox(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
}

// putEmails commits the test emails numbered ns into the inbox hash.
func putEmails(t *testing.T, s store.Store, hash string, ns ...int) {
	t.Helper()
	for _, n := range ns {
		if err := s.Commit(context.Background(), store.Batch{Put: []*store.Email{Email(hash, n)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// keys are the keys of the test emails numbered ns in hash.
func keys(hash string, ns ...int) []store.EmailKey {
	out := make([]store.EmailKey, len(ns))
	for i, n := range ns {
		out[i] = store.EmailKey{InboxHash: hash, ID: Email(hash, n).ID}
	}
	return out
}

// listed is the IDs an inbox lists, ascending.
func listed(t *testing.T, s store.Store, hash string) []string {
	t.Helper()
	ids, err := s.IDs(context.Background(), hash)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func ids(ks []store.EmailKey) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.ID
	}
	return out
}

// testLeadAndSecret: a store's only process leads; a secret is generated
// once and then read back.
func testLeadAndSecret(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	if lead, err := s.Lead(ctx); err != nil || !lead {
		t.Fatalf("Lead of the only process: %v %v", lead, err)
	}
	v, created, err := s.Secret(ctx, "k", func() ([]byte, error) { return []byte("first"), nil })
	if err != nil || !created || string(v) != "first" {
		t.Fatalf("first Secret: %q %v %v", v, created, err)
	}
	v, created, err = s.Secret(ctx, "k", func() ([]byte, error) {
		t.Error("generate called for a stored secret")
		return []byte("second"), nil
	})
	if err != nil || created || string(v) != "first" {
		t.Fatalf("second Secret: %q %v %v", v, created, err)
	}
	if v, created, err = s.Secret(ctx, "other", func() ([]byte, error) { return []byte("x"), nil }); err != nil || !created || string(v) != "x" {
		t.Fatalf("another Secret: %q %v %v", v, created, err)
	}
}

// testExpireInboxes: the inboxes expired by now go with their emails and
// are returned with their emails' IDs; the others stay.
func testExpireInboxes(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	now := time.Unix(1000, 0).UTC()
	putInboxes(t, s, now, "old")
	putInboxes(t, s, now.Add(time.Second), "new")
	putEmails(t, s, "old", 2, 1)
	putEmails(t, s, "new", 3)
	if gone, err := s.ExpireInboxes(ctx, now.Add(-time.Second)); err != nil || len(gone) != 0 {
		t.Fatalf("nothing expired yet: %+v %v", gone, err)
	}
	gone, err := s.ExpireInboxes(ctx, now)
	if err != nil || len(gone) != 1 || gone[0].Hash != "old" || gone[0].Address != "old@sandbox.test" ||
		!slices.Equal(gone[0].EmailIDs, ids(keys("old", 1, 2))) {
		t.Fatalf("ExpireInboxes: %+v %v", gone, err)
	}
	if _, err := s.Inbox(ctx, "old"); err == nil {
		t.Fatal("an expired inbox is still held")
	}
	if heads, err := s.EmailHeads(ctx, keys("old", 1, 2)); err != nil || len(heads) != 0 {
		t.Fatalf("an expired inbox's emails: %d %v", len(heads), err)
	}
	if got := listed(t, s, "new"); !slices.Equal(got, ids(keys("new", 3))) {
		t.Fatalf("the other inbox lists %v", got)
	}
	if gone, err := s.ExpireInboxes(ctx, now); err != nil || len(gone) != 0 {
		t.Fatalf("expired twice: %+v %v", gone, err)
	}
}

// testLimitsPerInbox: the oldest emails beyond the count go, per inbox;
// nothing goes when nothing is over a limit.
func testLimitsPerInbox(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	putInboxes(t, s, time.Now().Add(time.Hour), "a", "b")
	putEmails(t, s, "a", 5, 1, 3, 4, 2)
	putEmails(t, s, "b", 6, 7)
	if victims, err := s.EnforceLimits(ctx, 5, 0); err != nil || len(victims) != 0 {
		t.Fatalf("nothing over the limit: %v %v", victims, err)
	}
	if victims, err := s.EnforceLimits(ctx, 0, 0); err != nil || len(victims) != 0 {
		t.Fatalf("no limits: %v %v", victims, err)
	}
	victims, err := s.EnforceLimits(ctx, 3, 0)
	if err != nil || !slices.Equal(victims, keys("a", 1, 2)) {
		t.Fatalf("EnforceLimits(3, 0): %v %v, want a's 1 and 2", victims, err)
	}
	if got := listed(t, s, "a"); !slices.Equal(got, ids(keys("a", 3, 4, 5))) {
		t.Fatalf("a lists %v", got)
	}
	if got := listed(t, s, "b"); len(got) != 2 {
		t.Fatalf("b lists %v", got)
	}
	if victims, err := s.EnforceLimits(ctx, 3, 0); err != nil || len(victims) != 0 {
		t.Fatalf("enforced twice: %v %v", victims, err)
	}
}

// testLimitsTotalBytes: beyond the bytes of all inboxes, the oldest
// emails of all go first, whichever inbox holds them; the per-inbox
// count applies first.
func testLimitsTotalBytes(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	putInboxes(t, s, time.Now().Add(time.Hour), "a", "b")
	putEmails(t, s, "a", 1, 3, 5)
	putEmails(t, s, "b", 2, 4)
	size := Email("a", 1).Size() // every test email numbered below 10
	if victims, err := s.EnforceLimits(ctx, 0, 5*size); err != nil || len(victims) != 0 {
		t.Fatalf("at the limit: %v %v", victims, err)
	}
	victims, err := s.EnforceLimits(ctx, 0, 2*size+size/2)
	want := []store.EmailKey{keys("a", 1)[0], keys("b", 2)[0], keys("a", 3)[0]}
	if err != nil || !slices.Equal(victims, want) {
		t.Fatalf("EnforceLimits(0, 2.5 emails): %v %v, want %v", victims, err, want)
	}
	if a, b := listed(t, s, "a"), listed(t, s, "b"); !slices.Equal(a, ids(keys("a", 5))) || !slices.Equal(b, ids(keys("b", 4))) {
		t.Fatalf("left: a %v, b %v", a, b)
	}
	putEmails(t, s, "a", 6, 7)
	// a holds 5, 6, 7 and b 4: one per inbox leaves a's 7 and b's 4, and
	// then one email in all leaves a's 7.
	victims, err = s.EnforceLimits(ctx, 1, size)
	want = []store.EmailKey{keys("b", 4)[0], keys("a", 5)[0], keys("a", 6)[0]}
	if err != nil || !slices.Equal(victims, want) {
		t.Fatalf("EnforceLimits(1, 1 email): %v %v, want %v", victims, err, want)
	}
}

// testLimitsFollowChanges: what the limits count follows every change:
// emails deleted, read, signed or put again are counted once, and an
// inbox deleted counts no more.
func testLimitsFollowChanges(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	putInboxes(t, s, time.Now().Add(time.Hour), "a", "gone")
	putEmails(t, s, "a", 1, 2, 3, 4)
	putEmails(t, s, "gone", 5, 6, 7, 8)
	size := Email("a", 1).Size()
	unsigned := Email("a", 5)
	unsigned.Unsigned = store.PartParsed | store.PartRaw
	if err := s.Commit(ctx, store.Batch{Put: []*store.Email{unsigned}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteEmail(ctx, keys("a", 1)[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, store.Batch{Delete: keys("a", 2)}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkRead(ctx, keys("a", 3)[0]); err != nil {
		t.Fatal(err)
	}
	signed := store.Signed{Key: keys("a", 5)[0], Parts: unsigned.Unsigned, Parsed: []byte("PARSED"), Raw: []byte("RAW MESSAGE")}
	if err := s.SetSigned(ctx, []store.Signed{signed}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, store.Batch{Put: []*store.Email{Email("a", 4)}, Retry: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteInbox(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	// a holds 3, 4 and 5: three emails of size bytes.
	if victims, err := s.EnforceLimits(ctx, 3, 3*size); err != nil || len(victims) != 0 {
		t.Fatalf("three emails counted more: %v %v", victims, err)
	}
	victims, err := s.EnforceLimits(ctx, 0, 3*size-1)
	if err != nil || !slices.Equal(victims, keys("a", 3)) {
		t.Fatalf("EnforceLimits(0, below three emails): %v %v", victims, err)
	}
}

// testUnsigned: emails with unsigned payloads are listed once stored long
// enough, oldest first and up to the limit, until signed or deleted.
func testUnsigned(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	putInboxes(t, s, time.Now().Add(time.Hour), "a", "b")
	putEmails(t, s, "a", 1)
	for _, k := range []store.EmailKey{keys("a", 2)[0], keys("a", 3)[0], keys("b", 4)[0]} {
		e := Email(k.InboxHash, 0)
		e.ID = k.ID
		e.Unsigned = store.PartRaw
		e.Raw = unsignedRaw(false)
		if err := s.Commit(ctx, store.Batch{Put: []*store.Email{e}}); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.Unsigned(ctx, time.Hour, 10); err != nil || len(got) != 0 {
		t.Fatalf("none stored an hour ago: %v %v", got, err)
	}
	all := []store.EmailKey{keys("a", 2)[0], keys("a", 3)[0], keys("b", 4)[0]}
	got, err := s.Unsigned(ctx, 0, 10)
	slices.SortFunc(got, store.CompareKeys)
	if err != nil || !slices.Equal(got, all) {
		t.Fatalf("Unsigned: %v %v, want %v", got, err, all)
	}
	if got, err := s.Unsigned(ctx, 0, 2); err != nil || len(got) != 2 {
		t.Fatalf("Unsigned up to 2: %v %v", got, err)
	}
	// Signing fills the placeholder and changes nothing else, as the
	// server's signing does.
	signed := store.Signed{Key: keys("a", 2)[0], Parts: store.PartRaw, Raw: unsignedRaw(true)}
	if err := s.SetSigned(ctx, []store.Signed{signed}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Email(ctx, signed.Key); err != nil || got.Unsigned != 0 || string(got.Raw) != string(signed.Raw) {
		t.Fatalf("signed email read back: %v, want it signed", err)
	}
	if err := s.DeleteEmail(ctx, keys("a", 3)[0]); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Unsigned(ctx, 0, 10); err != nil || !slices.Equal(got, keys("b", 4)) {
		t.Fatalf("after signing and deleting: %v %v", got, err)
	}
	if err := s.DeleteInbox(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Unsigned(ctx, 0, 10); err != nil || len(got) != 0 {
		t.Fatalf("after deleting the inbox: %v %v", got, err)
	}
}

// unsignedRaw is a raw payload with a signature's place: zeros, or
// (signed) the signature.
func unsignedRaw(signed bool) []byte {
	raw := []byte(strings.Repeat("raw message ", 24))
	sig := bytes.Repeat([]byte{0}, 48)
	if signed {
		sig = bytes.Repeat([]byte{'S'}, 48)
	}
	return append(raw, sig...)
}

// testLastEmailID: the largest ID stored, whichever inbox holds it.
func testLastEmailID(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	if last, err := s.LastEmailID(ctx); err != nil || last != "" {
		t.Fatalf("empty store: %q %v", last, err)
	}
	putInboxes(t, s, time.Now().Add(time.Hour), "a", "b")
	putEmails(t, s, "a", 1, 7)
	putEmails(t, s, "b", 9, 3)
	if last, err := s.LastEmailID(ctx); err != nil || last != Email("b", 9).ID {
		t.Fatalf("LastEmailID: %q %v", last, err)
	}
	if err := s.DeleteEmail(ctx, keys("b", 9)[0]); err != nil {
		t.Fatal(err)
	}
	if last, err := s.LastEmailID(ctx); err != nil || last != Email("a", 7).ID {
		t.Fatalf("LastEmailID after a delete: %q %v", last, err)
	}
}
