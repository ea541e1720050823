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
