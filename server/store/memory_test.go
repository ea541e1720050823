package store

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMemoryDeflatesPlainPayloads: the memory store keeps a plain email's
// parsed and raw payloads deflated when that saves space, hands them back
// as they were, counts their full size, and keeps sealed payloads and
// payloads that do not shrink as they are.
func TestMemoryDeflatesPlainPayloads(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	if err := m.PutInbox(ctx, Inbox{Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	text := []byte("From: shop@example.org\r\n\r\n" + strings.Repeat("Thank you for your order. ", 40))
	parsed := []byte(`{"text":"` + strings.Repeat("Thank you for your order. ", 40) + `"}`)
	sealed := append([]byte{0xA5, 0}, make([]byte, 4000)...) // a sealed payload's tag, then zeros
	short := []byte("hi")
	emails := []*Email{
		{ID: "a", InboxHash: "h", ReceivedAt: time.Unix(1, 0), Metadata: []byte(`{"m":1}`), Parsed: parsed, Raw: text},
		{ID: "b", InboxHash: "h", ReceivedAt: time.Unix(2, 0), Metadata: []byte(`{"m":2}`), Parsed: sealed, Raw: short},
	}
	if err := m.Commit(ctx, Batch{Put: emails}); err != nil {
		t.Fatal(err)
	}

	held := m.inboxes["h"].emails
	if a := held["a"]; a.deflated != PartParsed|PartRaw || len(a.Parsed) >= len(parsed)/2 || len(a.Raw) >= len(text)/2 {
		t.Errorf("plain payloads held deflated %b, %d and %d bytes of %d and %d", a.deflated, len(a.Parsed), len(a.Raw), len(parsed), len(text))
	}
	if b := held["b"]; b.deflated != 0 || !bytes.Equal(b.Parsed, sealed) || !bytes.Equal(b.Raw, short) {
		t.Errorf("sealed and short payloads held as %b, %d and %d bytes", b.deflated, len(b.Parsed), len(b.Raw))
	}

	for _, want := range emails {
		got, err := m.Email(ctx, EmailKey{InboxHash: "h", ID: want.ID})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Parsed, want.Parsed) || !bytes.Equal(got.Raw, want.Raw) || !bytes.Equal(got.Metadata, want.Metadata) {
			t.Errorf("email %s read back changed", want.ID)
		}
	}
	list, err := m.Emails(ctx, "h", true, Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || !bytes.Equal(list[1].Parsed, parsed) || !bytes.Equal(list[1].Raw, text) {
		t.Errorf("listed with content: %d emails, or the plain one changed", len(list))
	}
	bare, err := m.Emails(ctx, "h", false, Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(bare) != 2 || bare[1].Parsed != nil || bare[1].Raw != nil || !bytes.Equal(bare[1].Metadata, emails[0].Metadata) {
		t.Errorf("listed without content: %+v", bare)
	}

	sizes := map[string]int64{}
	if err := m.ForEachEmail(ctx, func(info EmailInfo) error { sizes[info.ID] = info.Size; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, e := range emails {
		if sizes[e.ID] != e.Size() {
			t.Errorf("email %s counted %d bytes, want %d", e.ID, sizes[e.ID], e.Size())
		}
	}
}

// TestMemoryReadsWhileMarkingRead: reads copy stored emails without the
// lock, so marking one read replaces it rather than changing it (run with
// -race).
func TestMemoryReadsWhileMarkingRead(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	if err := m.PutInbox(ctx, Inbox{Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	key := EmailKey{InboxHash: "h", ID: "a"}
	if err := m.Commit(ctx, Batch{Put: []*Email{{ID: "a", InboxHash: "h", Metadata: []byte("{}")}}}); err != nil {
		t.Fatal(err)
	}
	before, err := m.Email(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := m.MarkRead(ctx, key); err != nil {
			t.Error(err)
		}
	})
	wg.Go(func() {
		if _, err := m.Emails(ctx, "h", true, Page{}); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
	after, err := m.Email(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if before.IsRead || !after.IsRead {
		t.Errorf("read before %v, after %v", before.IsRead, after.IsRead)
	}
}

// TestMemoryKeepsOneBufferOfPayloads: payloads handed in one after another
// in one buffer that ends with them are kept in it, not copied; payloads
// that only share a buffer with something more are copied, so the store
// never keeps bytes that are not its own.
func TestMemoryKeepsOneBufferOfPayloads(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	if err := m.PutInbox(ctx, Inbox{Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	sealed := func(n int, fill byte) []byte {
		return append([]byte{0xA5, 0}, bytes.Repeat([]byte{fill}, n)...) // a sealed payload's tag
	}
	payloads := func(buf []byte) (meta, parsed, raw []byte) {
		for _, p := range [][]byte{sealed(100, 1), sealed(200, 2), sealed(300, 3)} {
			buf = append(buf, p...)
		}
		return buf[:102], buf[102:304], buf[304:]
	}
	meta, parsed, raw := payloads(make([]byte, 0, 606))
	extraMeta, extraParsed, extraRaw := payloads(make([]byte, 0, 1000)) // room after them
	emails := []*Email{
		{ID: "a", InboxHash: "h", Metadata: meta, Parsed: parsed, Raw: raw},
		{ID: "b", InboxHash: "h", Metadata: extraMeta, Parsed: extraParsed, Raw: extraRaw},
		{ID: "c", InboxHash: "h", Metadata: meta[:102:102], Parsed: raw, Raw: parsed}, // out of order
	}
	if err := m.Commit(ctx, Batch{Put: emails}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   string
		kept bool
		want *Email
	}{{"a", true, emails[0]}, {"b", false, emails[1]}, {"c", false, emails[2]}} {
		got, err := m.Email(ctx, EmailKey{InboxHash: "h", ID: tt.id})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Metadata, tt.want.Metadata) || !bytes.Equal(got.Parsed, tt.want.Parsed) || !bytes.Equal(got.Raw, tt.want.Raw) {
			t.Fatalf("email %s: payloads changed", tt.id)
		}
		if kept := &got.Metadata[0] == &tt.want.Metadata[0]; kept != tt.kept {
			t.Errorf("email %s: buffer kept %t, want %t", tt.id, kept, tt.kept)
		}
		if cap(got.Metadata) != len(got.Metadata) || cap(got.Parsed) != len(got.Parsed) {
			t.Errorf("email %s: a stored payload's capacity runs past it", tt.id)
		}
	}
}

// TestMemoryKeepsSignedPayloadsInTheirBuffer: an email whose payloads came
// in buffers of their own (the metadata in one, the unsigned parsed and
// raw in another) keeps its metadata's buffer when SetSigned replaces the
// other two with signed ones handed in one buffer, and keeps that; an
// email whose payloads were copied gets its signed ones copied too.
func TestMemoryKeepsSignedPayloadsInTheirBuffer(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	if err := m.PutInbox(ctx, Inbox{Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	sealed := func(n int, fill byte) []byte {
		return append([]byte{0xA5, 0}, bytes.Repeat([]byte{fill}, n)...) // a sealed payload's tag
	}
	// two returns two payloads one after another in a buffer of their own.
	two := func(a, b []byte) ([]byte, []byte) {
		buf := append(append(make([]byte, 0, len(a)+len(b)), a...), b...)
		return buf[:len(a)], buf[len(a):]
	}
	meta := sealed(100, 1)
	parsed, raw := two(sealed(200, 2), sealed(300, 3))
	copiedMeta := append(sealed(100, 1), 0)[:102] // room after it: copied
	emails := []*Email{
		{ID: "a", InboxHash: "h", Unsigned: PartParsed | PartRaw, Metadata: meta[:len(meta):len(meta)], Parsed: parsed, Raw: raw},
		{ID: "b", InboxHash: "h", Unsigned: PartParsed | PartRaw, Metadata: copiedMeta, Parsed: parsed, Raw: raw},
	}
	if err := m.Commit(ctx, Batch{Put: emails}); err != nil {
		t.Fatal(err)
	}
	signedParsed, signedRaw := two(sealed(200, 4), sealed(300, 5))
	var changes []Signed
	for _, id := range []string{"a", "b"} {
		changes = append(changes, Signed{Key: EmailKey{InboxHash: "h", ID: id}, Parts: PartParsed | PartRaw, Parsed: signedParsed, Raw: signedRaw})
	}
	if err := m.SetSigned(ctx, changes); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   string
		kept bool
	}{{"a", true}, {"b", false}} {
		got, err := m.Email(ctx, EmailKey{InboxHash: "h", ID: tt.id})
		if err != nil {
			t.Fatal(err)
		}
		if got.Unsigned != 0 || !bytes.Equal(got.Parsed, signedParsed) || !bytes.Equal(got.Raw, signedRaw) || !bytes.Equal(got.Metadata, meta) {
			t.Fatalf("email %s: the signed payloads are not stored", tt.id)
		}
		kept := &got.Parsed[0] == &signedParsed[0] && &got.Raw[0] == &signedRaw[0]
		if kept != tt.kept || (&got.Metadata[0] == &meta[0]) != tt.kept {
			t.Errorf("email %s: buffers kept %t, want %t", tt.id, kept, tt.kept)
		}
		if cap(got.Parsed) != len(got.Parsed) {
			t.Errorf("email %s: the stored parsed payload's capacity runs past it", tt.id)
		}
	}
}
