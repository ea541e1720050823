package bolt_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
	"sandview/server/store/bolt"
)

// emailInfos is what ForEachEmail lists, sorted by id.
func emailInfos(t *testing.T, db *bolt.Store) []store.EmailInfo {
	t.Helper()
	var out []store.EmailInfo
	if err := db.ForEachEmail(context.Background(), func(info store.EmailInfo) error {
		out = append(out, info)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b store.EmailInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// TestBoltIndexFollowsEmails: what start-up reads (ForEachEmail, from the
// index) follows every change of the emails (a put, a re-put with other
// parts, a delete, an inbox deleted) and survives a reopen; a file of an
// earlier release, with emails and no index, gets its index built when
// it is opened, sizes and unsigned parts included.
func TestBoltIndexFollowsEmails(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"h1", "h2"} {
		if err := db.PutInbox(ctx, store.Inbox{Address: h + "@sandbox.test", Hash: h, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	a, b, c := email("h1", 1), email("h1", 2), email("h2", 3)
	c.Unsigned = store.PartRaw
	if err := db.Commit(ctx, store.Batch{Put: []*store.Email{a, b, c}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(ctx, store.Batch{Delete: []store.EmailKey{{InboxHash: "h1", ID: b.ID}}}); err != nil {
		t.Fatal(err)
	}
	want := []store.EmailInfo{
		{EmailKey: store.EmailKey{InboxHash: "h1", ID: a.ID}, Size: a.Size()},
		{EmailKey: store.EmailKey{InboxHash: "h2", ID: c.ID}, Size: c.Size(), Unsigned: store.PartRaw},
	}
	if got := emailInfos(t, db); !slices.Equal(got, want) {
		t.Fatalf("listed %+v, want %+v", got, want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// An earlier release's file: the same emails, no index bucket.
	raw, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket([]byte("index")) }); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = bolt.Open(path, nil); err != nil {
		t.Fatal(err)
	}
	if got := emailInfos(t, db); !slices.Equal(got, want) {
		t.Fatalf("after the index was built: listed %+v, want %+v", got, want)
	}
	if err := db.DeleteInbox(ctx, "h2"); err != nil {
		t.Fatal(err)
	}
	if got := emailInfos(t, db); !slices.Equal(got, want[:1]) {
		t.Fatalf("after the inbox was deleted: listed %+v, want %+v", got, want[:1])
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
