package bolt_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
	"sandview/server/store/bolt"
)

// placeholder is the size of the signature an unsigned payload holds as
// zeros (an ML-DSA-65 signature).
const placeholder = 3309

// unsignedPayload is n random bytes with a zero placeholder at 100, and
// the same bytes with the placeholder filled in (signed).
func unsignedPayload(r *rand.ChaCha8, n int) (unsigned, signed []byte) {
	unsigned = make([]byte, n)
	_, _ = r.Read(unsigned)
	clear(unsigned[100 : 100+placeholder])
	signed = bytes.Clone(unsigned)
	_, _ = r.Read(signed[100 : 100+placeholder])
	return unsigned, signed
}

// storedValue is the raw value the file holds under bucket/hash/id.
func storedValue(t *testing.T, path string, bucket string, id string) []byte {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []byte
	_ = db.View(func(tx *bbolt.Tx) error {
		if b := tx.Bucket([]byte(bucket)); b != nil {
			if inbox := b.Bucket([]byte("h")); inbox != nil {
				out = bytes.Clone(inbox.Get([]byte(id)))
			}
		}
		return nil
	})
	return out
}

// TestBoltSigningWritesOnlySignatures: signing an email stored unsigned
// (its placeholders zeros) logs the signatures, not the email again,
// leaves its stored value as it was put, and the signed email is what
// every read returns: after a crash that left only the log, after it is
// marked read, after a restart; deleting it drops its signatures.
func TestBoltSigningWritesOnlySignatures(t *testing.T) {
	ctx := context.Background()
	r := rand.NewChaCha8([32]byte{1})
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	db := openLive(t, live)
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	e := email("h", 1)
	// The sizes of a small encrypted mail's payloads: the signatures are
	// most of them.
	parsed, parsedSigned := unsignedPayload(r, 4_800)
	raw, rawSigned := unsignedPayload(r, 5_300)
	e.Parsed, e.Raw, e.Unsigned = parsed, raw, store.PartParsed|store.PartRaw
	key := store.EmailKey{InboxHash: "h", ID: e.ID}
	logged := func(write func() error) int64 {
		t.Helper()
		before, _ := bolt.LogEnd(live + ".wal")
		if err := write(); err != nil {
			t.Fatal(err)
		}
		after, err := bolt.LogEnd(live + ".wal")
		if err != nil {
			t.Fatal(err)
		}
		return after - before
	}
	put := logged(func() error { return db.Commit(ctx, store.Batch{Put: []*store.Email{e}}) })
	if put > e.Size()-2*placeholder+200 {
		t.Fatalf("putting an email of %d payload bytes logged %d bytes: its placeholders were written", e.Size(), put)
	}
	signParsed := logged(func() error {
		return db.SetSigned(ctx, []store.Signed{{Key: key, Parts: store.PartParsed, Parsed: parsedSigned}})
	})
	signRaw := logged(func() error {
		return db.SetSigned(ctx, []store.Signed{{Key: key, Parts: store.PartRaw, Raw: rawSigned}})
	})
	// The second entry holds both signatures.
	if signParsed > placeholder+200 || signRaw > 2*placeholder+300 {
		t.Fatalf("signing logged %d and %d bytes, want the signatures only", signParsed, signRaw)
	}
	check := func(db *bolt.Store, when string, read bool) {
		t.Helper()
		got, err := db.Email(ctx, key)
		if err != nil || got.Unsigned != 0 || got.IsRead != read || !bytes.Equal(got.Parsed, parsedSigned) || !bytes.Equal(got.Raw, rawSigned) {
			t.Fatalf("%s: unsigned %v, read %v, parsed and raw signed %v %v, %v", when, got.Unsigned, got.IsRead,
				bytes.Equal(got.Parsed, parsedSigned), bytes.Equal(got.Raw, rawSigned), err)
		}
		list, err := db.Emails(ctx, "h", false, store.Page{})
		if err != nil || len(list) != 1 || list[0].Unsigned != 0 {
			t.Fatalf("%s: listed %+v, %v", when, list, err)
		}
		if unsigned, err := db.Unsigned(ctx, 0, 10); err != nil || len(unsigned) != 0 {
			t.Fatalf("%s: unsigned %v %v, want none", when, unsigned, err)
		}
	}
	crashed := filepath.Join(dir, "crashed.db") // before a read checkpoints
	copyFile(t, live, crashed)
	copyFile(t, live+".wal", crashed+".wal")
	check(db, "signed", false)
	replayed, err := bolt.Open(crashed, nil)
	if err != nil {
		t.Fatal(err)
	}
	check(replayed, "after a crash", false)
	if err := replayed.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// The value as put (its placeholders zeros), the signatures apart.
	if v := storedValue(t, live, "emails", e.ID); len(v) == 0 || int64(len(v)) > e.Size()-2*placeholder+100 {
		t.Fatalf("stored value of %d bytes", len(v))
	}
	if v := storedValue(t, live, "signatures", e.ID); len(v) < 2*placeholder || len(v) > 2*placeholder+100 {
		t.Fatalf("signatures entry of %d bytes", len(v))
	}
	db, err = bolt.Open(live, nil)
	if err != nil {
		t.Fatal(err)
	}
	check(db, "after a restart", false)
	if err := db.MarkRead(ctx, key); err != nil {
		t.Fatal(err)
	}
	check(db, "marked read", true)
	if err := db.DeleteEmail(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if v := storedValue(t, live, "signatures", e.ID); v != nil {
		t.Fatalf("the signatures of a deleted email are kept (%d bytes)", len(v))
	}
}

// TestBoltSigningAnEmailPutSigned: an email stored without placeholders
// (signed again, or of another length) is put whole.
func TestBoltSigningAnEmailPutSigned(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	db := openBoltWithInbox(t, path)
	defer db.Close()
	e := email("h", 1)
	if err := db.Commit(ctx, store.Batch{Put: []*store.Email{e}}); err != nil {
		t.Fatal(err)
	}
	key := store.EmailKey{InboxHash: "h", ID: e.ID}
	if err := db.SetSigned(ctx, []store.Signed{{Key: key, Parts: store.PartRaw, Raw: []byte("raw massage")}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Email(ctx, key)
	if err != nil || string(got.Raw) != "raw massage" || got.Unsigned != 0 {
		t.Fatalf("after signing again: %+v, %v", got, err)
	}
}
