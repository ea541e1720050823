package bolt_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
	"sandview/server/store/bolt"
)

// TestBoltCountsAFileWithoutCounters: a file of an earlier release (its
// emails, an index bucket, no counters) gets its counters and unsigned set
// built from the emails when it is opened, and its index dropped; an
// email signed apart counts as signed.
func TestBoltCountsAFileWithoutCounters(t *testing.T) {
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
	b.Unsigned, c.Unsigned = store.PartRaw, store.PartRaw
	b.Raw = append([]byte("raw message, then a signature's place: "), make([]byte, 64)...)
	if err := db.Commit(ctx, store.Batch{Put: []*store.Email{a, b, c}}); err != nil {
		t.Fatal(err)
	}
	signedRaw := append([]byte("raw message, then a signature's place: "), slices.Repeat([]byte{'S'}, 64)...)
	if err := db.SetSigned(ctx, []store.Signed{{Key: store.EmailKey{InboxHash: "h1", ID: b.ID}, Parts: store.PartRaw, Raw: signedRaw}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	raw, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = raw.Update(func(tx *bbolt.Tx) error {
		for _, name := range []string{"counts", "unsigned"} {
			if err := tx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		_, err := tx.CreateBucket([]byte("index"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	if db, err = bolt.Open(path, nil); err != nil {
		t.Fatal(err)
	}
	want := []store.EmailKey{{InboxHash: "h2", ID: c.ID}}
	if got, err := db.Unsigned(ctx, 0, 10); err != nil || !slices.Equal(got, want) {
		t.Fatalf("Unsigned %v %v, want %v (b is signed apart)", got, err, want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if victims := enforce(t, path, 1, 0); !slices.Equal(victims, []store.EmailKey{{InboxHash: "h1", ID: a.ID}}) {
		t.Fatalf("one per inbox evicted %v, want h1's oldest", victims)
	}
	raw, err = bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if err := raw.View(func(tx *bbolt.Tx) error {
		if tx.Bucket([]byte("index")) != nil {
			t.Error("the earlier releases' index bucket was kept")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
