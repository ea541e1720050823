package memory

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sandview/server/store"
	"slices"

	"sandview/crypto"
)

// The stored form of a memory store's emails: plain payloads deflated,
// each email's payloads in one allocation.

// minSaving is the part of a payload deflating must save for the deflated
// form to be kept.
const minSaving = 8 // an eighth

// pack is the stored form of e, its payloads laid out as store.Layout says; it
// deflates outside the lock. When adopt is set, payloads that already lie
// so (see store.Email) are kept as they are, not copied.
func (m *Store) pack(e *store.Email, adopt bool) *memEmail {
	out := &memEmail{Email: *e, size: e.Size()}
	for _, p := range []struct {
		part store.Parts
		data *[]byte
	}{{store.PartParsed, &out.Parsed}, {store.PartRaw, &out.Raw}} {
		if d, ok := m.deflate(*p.data); ok {
			*p.data = d
			out.deflated |= p.part
		}
	}
	payloads := []*[]byte{&out.Metadata, &out.Parsed, &out.Raw}
	groups, totals := store.Layout([3]int{len(out.Metadata), len(out.Parsed), len(out.Raw)})
	if adopt && laidOut(payloads, groups, totals) {
		for _, data := range payloads {
			*data = slices.Clip(*data)
		}
		return out
	}
	var bufs [2][]byte
	for i, data := range payloads {
		if *data == nil {
			continue
		}
		g := groups[i]
		if bufs[g] == nil {
			bufs[g] = make([]byte, 0, totals[g])
		}
		start := len(bufs[g])
		bufs[g] = append(bufs[g], *data...)
		*data = bufs[g][start:len(bufs[g]):len(bufs[g])]
	}
	return out
}

// laidOut reports whether the payloads lie as store.Layout lays them out (see
// store.Email): those of an allocation one after another, in order, in a buffer
// that holds nothing after them.
func laidOut(payloads []*[]byte, groups [3]int, totals [2]int) bool {
	var last [2][]byte // the last payload seen in each allocation
	for i, data := range payloads {
		d := *data
		if len(d) == 0 {
			continue
		}
		g := groups[i]
		switch prev := last[g]; {
		case prev == nil && cap(d) != totals[g]:
			return false
		case prev != nil && (cap(prev) != len(prev)+cap(d) || &prev[:len(prev)+1][len(prev)] != &d[0]):
			return false
		}
		last[g] = d
	}
	return true
}

// deflate returns data deflated when that saves at least 1/minSaving of
// it; sealed payloads are not tried.
func (m *Store) deflate(data []byte) ([]byte, bool) {
	if len(data) < 64 || crypto.IsSealed(data) {
		return nil, false
	}
	var buf bytes.Buffer
	w, _ := m.writers.Get().(*flate.Writer)
	if w == nil {
		w, _ = flate.NewWriter(&buf, flate.BestSpeed) // BestSpeed is a valid level
	} else {
		w.Reset(&buf)
	}
	defer m.writers.Put(w)
	if _, err := w.Write(data); err != nil || w.Close() != nil {
		return nil, false
	}
	if buf.Len() > len(data)-len(data)/minSaving {
		return nil, false
	}
	return buf.Bytes(), true // copied by pack
}

// unpack is the store.Email of a stored one, its payloads inflated (without
// content: with none).
func (m *Store) unpack(e *memEmail, withContent bool) (*store.Email, error) {
	out := e.Email
	if !withContent {
		out.Parsed, out.Raw = nil, nil
		return &out, nil
	}
	for _, p := range []struct {
		part store.Parts
		data *[]byte
	}{{store.PartParsed, &out.Parsed}, {store.PartRaw, &out.Raw}} {
		if e.deflated&p.part == 0 {
			continue
		}
		data, err := m.inflate(*p.data)
		if err != nil {
			return nil, fmt.Errorf("email %s: inflate a stored payload: %w", e.ID, err)
		}
		*p.data = data
	}
	return &out, nil
}

// inflate is the inverse of deflate.
func (m *Store) inflate(data []byte) ([]byte, error) {
	src := bytes.NewReader(data)
	r, _ := m.readers.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReader(src)
	} else if err := r.(flate.Resetter).Reset(src, nil); err != nil {
		return nil, err
	}
	defer m.readers.Put(r)
	return io.ReadAll(r)
}
