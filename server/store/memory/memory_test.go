package memory

import (
	"bytes"
	"context"
	"sandview/server/store"
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
	m := New()
	if err := m.PutInbox(ctx, store.Inbox{Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	text := []byte("From: shop@example.org\r\n\r\n" + strings.Repeat("Thank you for your order. ", 40))
	parsed := []byte(`{"text":"` + strings.Repeat("Thank you for your order. ", 40) + `"}`)
	sealed := append([]byte{0xA5, 0}, make([]byte, 4000)...) // a sealed payload's tag, then zeros
	short := []byte("hi")
	emails := []*store.Email{
		{ID: "a", InboxHash: "h", ReceivedAt: time.Unix(1, 0), Metadata: []byte(`{"m":1}`), Parsed: parsed, Raw: text},
		{ID: "b", InboxHash: "h", ReceivedAt: time.Unix(2, 0), Metadata: []byte(`{"m":2}`), Parsed: sealed, Raw: short},
	}
	if err := m.Commit(ctx, store.Batch{Put: emails}); err != nil {
		t.Fatal(err)
	}

	held := m.inboxes["h"].emails
	if a := held["a"]; a.deflated != store.PartParsed|store.PartRaw || len(a.Parsed) >= len(parsed)/2 || len(a.Raw) >= len(text)/2 {
		t.Errorf("plain payloads held deflated %b, %d and %d bytes of %d and %d", a.deflated, len(a.Parsed), len(a.Raw), len(parsed), len(text))
	}
	if b := held["b"]; b.deflated != 0 || !bytes.Equal(b.Parsed, sealed) || !bytes.Equal(b.Raw, short) {
		t.Errorf("sealed and short payloads held as %b, %d and %d bytes", b.deflated, len(b.Parsed), len(b.Raw))
	}

	for _, want := range emails {
		got, err := m.Email(ctx, store.EmailKey{InboxHash: "h", ID: want.ID})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Parsed, want.Parsed) || !bytes.Equal(got.Raw, want.Raw) || !bytes.Equal(got.Metadata, want.Metadata) {
			t.Errorf("email %s read back changed", want.ID)
		}
	}
	list, err := m.Emails(ctx, "h", true, store.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || !bytes.Equal(list[1].Parsed, parsed) || !bytes.Equal(list[1].Raw, text) {
		t.Errorf("listed with content: %d emails, or the plain one changed", len(list))
	}
	bare, err := m.Emails(ctx, "h", false, store.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(bare) != 2 || bare[1].Parsed != nil || bare[1].Raw != nil || !bytes.Equal(bare[1].Metadata, emails[0].Metadata) {
		t.Errorf("listed without content: %+v", bare)
	}
}

// TestMemoryReadsWhileMarkingRead: reads copy stored emails without the
// lock, so marking one read replaces it rather than changing it (run with
// -race).
func TestMemoryReadsWhileMarkingRead(t *testing.T) {
	ctx := context.Background()
	m := New()
	if err := m.PutInbox(ctx, store.Inbox{Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	key := store.EmailKey{InboxHash: "h", ID: "a"}
	if err := m.Commit(ctx, store.Batch{Put: []*store.Email{{ID: "a", InboxHash: "h", Metadata: []byte("{}")}}}); err != nil {
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
		if _, err := m.Emails(ctx, "h", true, store.Page{}); err != nil {
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
	m := New()
	if err := m.PutInbox(ctx, store.Inbox{Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	payloads := func(buf []byte) (meta, parsed, raw []byte) {
		for _, p := range [][]byte{sealed(100, 1), sealed(200, 2), sealed(300, 3)} {
			buf = append(buf, p...)
		}
		return buf[:102], buf[102:304], buf[304:]
	}
	meta, parsed, raw := payloads(make([]byte, 0, 606))
	extraMeta, extraParsed, extraRaw := payloads(make([]byte, 0, 1000)) // room after them
	emails := []*store.Email{
		{ID: "a", InboxHash: "h", Metadata: meta, Parsed: parsed, Raw: raw},
		{ID: "b", InboxHash: "h", Metadata: extraMeta, Parsed: extraParsed, Raw: extraRaw},
		{ID: "c", InboxHash: "h", Metadata: meta[:102:102], Parsed: raw, Raw: parsed}, // out of order
	}
	if err := m.Commit(ctx, store.Batch{Put: emails}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   string
		kept bool
		want *store.Email
	}{{"a", true, emails[0]}, {"b", false, emails[1]}, {"c", false, emails[2]}} {
		got, err := m.Email(ctx, store.EmailKey{InboxHash: "h", ID: tt.id})
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

// TestMemoryKeepsSignedPayloadsInTheirBuffer: SetSigned keeps a change
// whose payloads are the ones it handed out, signed where they lie
// (Metadata set), as they are; one with other payloads is copied.
func TestMemoryKeepsSignedPayloadsInTheirBuffer(t *testing.T) {
	ctx := context.Background()
	m := New()
	if err := m.PutInbox(ctx, store.Inbox{Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	// laid returns three payloads one after another in a buffer of their own.
	laid := func(fills ...byte) (meta, parsed, raw []byte) {
		buf := make([]byte, 0, 606)
		for i, fill := range fills {
			buf = append(buf, sealed(100*(i+1), fill)...)
		}
		return buf[:102], buf[102:304], buf[304:]
	}
	var changes []store.Signed
	for _, id := range []string{"a", "b"} {
		meta, parsed, raw := laid(1, 2, 3)
		e := &store.Email{ID: id, InboxHash: "h", Unsigned: store.PartParsed | store.PartRaw, Metadata: meta, Parsed: parsed, Raw: raw}
		if err := m.Commit(ctx, store.Batch{Put: []*store.Email{e}}); err != nil {
			t.Fatal(err)
		}
		c := store.Signed{Key: store.EmailKey{InboxHash: "h", ID: id}, Parts: store.PartParsed | store.PartRaw}
		if id == "a" { // signed where it lies
			stored, err := m.Email(ctx, c.Key)
			if err != nil {
				t.Fatal(err)
			}
			stored.Parsed[1], stored.Raw[1] = 2, 2 // the signed flag
			c.Metadata, c.Parsed, c.Raw = stored.Metadata, stored.Parsed, stored.Raw
		} else {
			_, c.Parsed, c.Raw = laid(1, 4, 5)
		}
		changes = append(changes, c)
	}
	if err := m.SetSigned(ctx, changes); err != nil {
		t.Fatal(err)
	}
	for i, tt := range []struct {
		id   string
		kept bool
	}{{"a", true}, {"b", false}} {
		c := changes[i]
		got, err := m.Email(ctx, c.Key)
		if err != nil {
			t.Fatal(err)
		}
		if got.Unsigned != 0 || !bytes.Equal(got.Parsed, c.Parsed) || !bytes.Equal(got.Raw, c.Raw) || !bytes.Equal(got.Metadata, sealed(100, 1)) {
			t.Fatalf("email %s: the signed payloads are not stored", tt.id)
		}
		if kept := &got.Parsed[0] == &c.Parsed[0] && &got.Raw[0] == &c.Raw[0]; kept != tt.kept {
			t.Errorf("email %s: buffer kept %t, want %t", tt.id, kept, tt.kept)
		}
		if tt.kept && &got.Metadata[0] != &c.Metadata[0] {
			t.Errorf("email %s: the metadata is not kept with the signed payloads", tt.id)
		}
		if cap(got.Metadata) != len(got.Metadata) || cap(got.Parsed) != len(got.Parsed) {
			t.Errorf("email %s: a stored payload's capacity runs past it", tt.id)
		}
	}
}

// TestMemoryLaysPayloadsOutInTwoWhenRoundingWastes: an encrypted mail's
// payloads go in two allocations when those round up to less than one;
// payloads handed in one are copied so, payloads handed so are kept.
func TestMemoryLaysPayloadsOutInTwoWhenRoundingWastes(t *testing.T) {
	sizes := [3]int{4637, 5107, 5536} // a 1.4 KB mail's sealed payloads
	groups, totals := store.Layout(sizes)
	one := store.Allocated(sizes[0] + sizes[1] + sizes[2])
	if two := store.Allocated(totals[0]) + store.Allocated(totals[1]); totals[1] == 0 || two >= one {
		t.Fatalf("layout %v takes %d bytes in %v, one allocation %d", groups, two, totals, one)
	}
	payload := func(i int) []byte { return append([]byte{0xA5, 0}, bytes.Repeat([]byte{byte(i)}, sizes[i]-2)...) }
	m := New()
	for _, split := range []bool{false, true} {
		var e store.Email
		dst := [3]*[]byte{&e.Metadata, &e.Parsed, &e.Raw}
		var bufs [2][]byte
		for i := range sizes {
			g, size := 0, totals[0]+totals[1]
			if split {
				g, size = groups[i], totals[groups[i]]
			}
			if bufs[g] == nil {
				bufs[g] = make([]byte, 0, size)
			}
			start := len(bufs[g])
			bufs[g] = append(bufs[g], payload(i)...)
			*dst[i] = bufs[g][start:]
		}
		got := m.pack(&e, true)
		for i, stored := range [3][]byte{got.Metadata, got.Parsed, got.Raw} {
			if !bytes.Equal(stored, payload(i)) {
				t.Fatal("packing changed the payloads")
			}
			if kept := &stored[0] == &(*dst[i])[0]; kept != split {
				t.Errorf("handed split %t: payload %d kept %t", split, i, kept)
			}
			if cap(stored) != len(stored) {
				t.Errorf("payload %d: its capacity runs past it", i)
			}
		}
	}
}

// sealed is a payload of n fill bytes behind a sealed payload's tag.
func sealed(n int, fill byte) []byte {
	return append([]byte{0xA5, 0}, bytes.Repeat([]byte{fill}, n)...)
}
