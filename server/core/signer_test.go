package core

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/server/store"
	"sandview/server/store/memory"
)

// signerFixture is a signer over a memory store holding one encrypted
// inbox, with no background workers unless a test starts them.
type signerFixture struct {
	st     *memory.Store
	signer *signer
	inbox  *Inbox
	opener *crypto.Opener
}

func newSignerFixture(t testing.TB) *signerFixture {
	t.Helper()
	keys, key := testKeys(t)
	sealer, err := crypto.NewSealer(keys.PublicKey, key, "")
	if err != nil {
		t.Fatal(err)
	}
	opener, err := crypto.NewOpener(keys.SecretKey, key.PublicKey(), "")
	if err != nil {
		t.Fatal(err)
	}
	st := memory.New()
	in := &Inbox{Inbox: store.Inbox{Address: "a@sandbox.test", Hash: crypto.InboxHash(keys.PublicKey), Encrypted: true}, sealer: sealer}
	if err := st.PutInbox(context.Background(), in.Inbox); err != nil {
		t.Fatal(err)
	}
	return &signerFixture{st: st, signer: newSigner(st, slog.New(slog.NewTextHandler(io.Discard, nil))), inbox: in, opener: opener}
}

// addUnsigned stores an email whose parsed and raw payloads are encrypted
// but unsigned, as ingest leaves them.
func (f *signerFixture) addUnsigned(t testing.TB, n int) *store.Email {
	t.Helper()
	env, err := f.inbox.sealer.NewEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	e := &store.Email{ID: fmt.Sprintf("%016x", n), InboxHash: f.inbox.Hash, Unsigned: store.PartParsed | store.PartRaw}
	for i, part := range []struct {
		dst  *[]byte
		text string
		seal func([]byte, []byte, bool) (crypto.Sealed, error)
	}{
		{&e.Metadata, "metadata", env.Seal},
		{&e.Parsed, "parsed", env.Encrypt},
		{&e.Raw, "raw", env.Encrypt},
	} {
		if *part.dst, err = part.seal([]byte(fmt.Sprintf("%s %d", part.text, n)), []byte("service:"+part.text), i == 0); err != nil {
			t.Fatal(err)
		}
	}
	f.commit(t, e)
	return e
}

// addLegacyUnsigned stores an email the way earlier versions did: every
// payload as EncryptedPayload JSON, parsed and raw with a placeholder sig.
func (f *signerFixture) addLegacyUnsigned(t testing.TB, n int) *store.Email {
	t.Helper()
	e := &store.Email{ID: fmt.Sprintf("%016x", n), InboxHash: f.inbox.Hash, Unsigned: store.PartParsed | store.PartRaw}
	for i, part := range []struct {
		dst  *[]byte
		text string
	}{{&e.Metadata, "metadata"}, {&e.Parsed, "parsed"}, {&e.Raw, "raw"}} {
		p, err := f.inbox.sealer.Seal([]byte(fmt.Sprintf("%s %d", part.text, n)), []byte("service:"+part.text))
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			p.Sig = crypto.EncodeBase64URL(make([]byte, crypto.SignatureSize))
		}
		if *part.dst, err = json.Marshal(p); err != nil {
			t.Fatal(err)
		}
	}
	f.commit(t, e)
	return e
}

func (f *signerFixture) commit(t testing.TB, e *store.Email) {
	t.Helper()
	if err := f.st.Commit(context.Background(), store.Batch{Put: []*store.Email{e}}); err != nil {
		t.Fatal(err)
	}
}

// open opens the JSON of an encrypted payload.
func (f *signerFixture) open(t *testing.T, data []byte) string {
	t.Helper()
	p, err := crypto.ParsePayload(data)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := f.opener.Open(p)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return string(plain)
}

// openStored opens one stored payload of e as the API would serve it.
func (f *signerFixture) openStored(t *testing.T, e *store.Email, stored []byte) string {
	t.Helper()
	data, err := f.inbox.AppendPayload(nil, e, stored)
	if err != nil {
		t.Fatal(err)
	}
	return f.open(t, data)
}

func TestReadSignsOnlyWhatItNeedsOnce(t *testing.T) {
	f := newSignerFixture(t)
	ctx := context.Background()
	e := f.addUnsigned(t, 1)
	const readers = 8
	results := make([]*store.Email, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() {
			copyOfE := *e
			got, err := f.signer.ready(ctx, f.inbox, &copyOfE, store.PartParsed)
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = got
		})
	}
	wg.Wait()
	for _, got := range results {
		if got == nil || string(got.Parsed) != string(results[0].Parsed) {
			t.Fatal("concurrent readers got different signatures: the email was signed more than once")
		}
	}
	if got := f.openStored(t, results[0], results[0].Parsed); got != "parsed 1" {
		t.Fatalf("parsed opens to %q", got)
	}
	stored, err := f.st.Email(ctx, store.EmailKey{InboxHash: f.inbox.Hash, ID: e.ID})
	if err != nil || stored.Unsigned != store.PartRaw || string(stored.Parsed) != string(results[0].Parsed) || string(stored.Raw) != string(e.Raw) {
		t.Fatalf("after a parsed read the store holds Unsigned=%b (want raw only), err %v", stored.Unsigned, err)
	}
	got, err := f.signer.ready(ctx, f.inbox, stored, store.PartRaw)
	if err != nil || f.openStored(t, got, got.Raw) != "raw 1" || got.Unsigned != 0 {
		t.Fatalf("raw read: %+v, %v", got, err)
	}
}

// TestLegacyPayloadsAreSignedAndServed: emails stored as payload JSON by
// earlier versions are served as stored once signed, and their unsigned
// payloads are signed (becoming sealed ones).
func TestLegacyPayloadsAreSignedAndServed(t *testing.T) {
	f := newSignerFixture(t)
	ctx := context.Background()
	e := f.addLegacyUnsigned(t, 7)
	if got := f.openStored(t, e, e.Metadata); got != "metadata 7" {
		t.Fatalf("metadata opens to %q", got)
	}
	got, err := f.signer.ready(ctx, f.inbox, e, store.PartParsed|store.PartRaw)
	if err != nil {
		t.Fatal(err)
	}
	if got.Unsigned != 0 || !crypto.IsSealed(got.Parsed) || !crypto.IsSealed(got.Raw) {
		t.Fatalf("after signing: Unsigned=%b, parsed sealed %t, raw sealed %t", got.Unsigned, crypto.IsSealed(got.Parsed), crypto.IsSealed(got.Raw))
	}
	if f.openStored(t, got, got.Parsed) != "parsed 7" || f.openStored(t, got, got.Raw) != "raw 7" {
		t.Fatal("signed legacy payloads do not open to their content")
	}
}

func TestReadOfDeletedEmailIsNotFound(t *testing.T) {
	f := newSignerFixture(t)
	ctx := context.Background()
	kept, deleted := f.addUnsigned(t, 1), f.addUnsigned(t, 2)
	if err := f.st.DeleteEmail(ctx, store.EmailKey{InboxHash: f.inbox.Hash, ID: deleted.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.signer.ready(ctx, f.inbox, deleted, store.PartParsed); err == nil {
		t.Fatal("signing a deleted email succeeded")
	}
	list, err := f.signer.readyAll(ctx, f.inbox, []*store.Email{kept, deleted}, store.PartParsed)
	if err != nil || len(list) != 1 || list[0].ID != kept.ID || f.openStored(t, list[0], list[0].Parsed) != "parsed 1" {
		t.Fatalf("list with a deleted email: %v, %v", list, err)
	}
}

func TestBackgroundWorkersSignEverything(t *testing.T) {
	f := newSignerFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	var workers sync.WaitGroup
	f.signer.run(ctx, &workers)
	var pending []emailRef
	for i := range 40 {
		pending = append(pending, emailRef{inbox: f.inbox, id: f.addUnsigned(t, i).ID})
	}
	f.signer.enqueue(pending)
	waitCtx, stop := context.WithTimeout(ctx, 20*time.Second)
	defer stop()
	if err := f.signer.wait(waitCtx); err != nil {
		t.Fatal(err)
	}
	list, err := f.st.Emails(ctx, f.inbox.Hash, true, store.Page{})
	if err != nil || len(list) != 40 {
		t.Fatalf("list: %d, %v", len(list), err)
	}
	for _, e := range list {
		if e.Unsigned != 0 {
			t.Fatalf("email %s left with Unsigned=%b", e.ID, e.Unsigned)
		}
		f.openStored(t, e, e.Parsed)
		f.openStored(t, e, e.Raw)
	}
	cancel()
	workers.Wait()
}

func TestBackgroundSigningGivesWayToIngest(t *testing.T) {
	f := newSignerFixture(t)
	ctx := context.Background()
	f.signer.ingestStarted()
	f.signer.enqueue([]emailRef{{inbox: f.inbox, id: "a"}})
	// While an arrival is in progress the queue is left alone.
	busy, cancel := context.WithTimeout(ctx, 3*quietPeriod)
	defer cancel()
	if batch, ok := f.signer.next(busy); ok {
		t.Fatalf("took %v during an arrival", batch)
	}
	// Once ingest has paused for quietPeriod, it is taken.
	f.signer.ingestDone([]emailRef{{inbox: f.inbox, id: "b"}})
	paused, cancel2 := context.WithTimeout(ctx, 10*time.Second)
	defer cancel2()
	batch, ok := f.signer.next(paused)
	if !ok || len(batch) != 2 || batch[0].id != "a" || batch[1].id != "b" {
		t.Fatalf("after the pause: %v, %t", batch, ok)
	}
	f.signer.finished(len(batch))

	// A backlog beyond maxBacklog is signed even while mail arrives.
	f.signer.ingestStarted()
	backlog := make([]emailRef, maxBacklog+1)
	for i := range backlog {
		backlog[i] = emailRef{inbox: f.inbox, id: fmt.Sprint(i)}
	}
	f.signer.enqueue(backlog)
	batch, ok = f.signer.next(paused)
	if !ok || len(batch) != backgroundBatch {
		t.Fatalf("with a long backlog during an arrival: %d emails, %t", len(batch), ok)
	}
}

// BenchmarkFirstReadOfUnsignedEmail is what the first read of an email's
// parsed content adds when the background signer has not reached it yet:
// reading the stored payload back, signing it and storing the signature.
func BenchmarkFirstReadOfUnsignedEmail(b *testing.B) {
	f := newSignerFixture(b)
	ctx := context.Background()
	emails := make([]*store.Email, b.N)
	for i := range emails {
		emails[i] = f.addUnsigned(b, i)
	}
	b.ResetTimer()
	for _, e := range emails {
		if _, err := f.signer.ready(ctx, f.inbox, e, store.PartParsed); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOverlappingBatchesDoNotDeadlock signs the same emails as lists do
// (newest first) and as the background does (oldest first), at once.
func TestOverlappingBatchesDoNotDeadlock(t *testing.T) {
	f := newSignerFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for round := range 5 {
		var oldestFirst []emailRef
		var newestFirst []*store.Email
		for i := range 8 {
			e := f.addUnsigned(t, round*100+i)
			oldestFirst = append(oldestFirst, emailRef{inbox: f.inbox, id: e.ID})
			newestFirst = append([]*store.Email{e}, newestFirst...)
		}
		// readyAll replaces the entries of the slice it is given, so the
		// other batch is made before it starts.
		ends := []emailRef{{f.inbox, newestFirst[0].ID}, {f.inbox, newestFirst[7].ID}}
		var wg sync.WaitGroup
		wg.Go(func() {
			if _, err := f.signer.sign(ctx, oldestFirst, store.PartParsed|store.PartRaw); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if _, err := f.signer.sign(ctx, ends, store.PartParsed); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if _, err := f.signer.readyAll(ctx, f.inbox, newestFirst, store.PartParsed); err != nil {
				t.Error(err)
			}
		})
		wg.Wait()
		if ctx.Err() != nil {
			t.Fatal("signing overlapping batches did not finish")
		}
	}
}
