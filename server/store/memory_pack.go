package store

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"slices"

	"sandview/crypto"
)

// The stored form of a memory store's emails: plain payloads deflated,
// each email's payloads in one allocation.

// minSaving is the part of a payload deflating must save for the deflated
// form to be kept.
const minSaving = 8 // an eighth

// pack is the stored form of e, its payloads in one allocation (three
// would each be rounded up to a size class); it deflates outside the lock.
// When adopt is set, payloads that lie in buffers of their own (see Email)
// are kept there instead.
func (m *Memory) pack(e *Email, adopt bool) *memEmail {
	out := &memEmail{Email: *e, size: e.Size()}
	for _, p := range []struct {
		part Parts
		data *[]byte
	}{{PartParsed, &out.Parsed}, {PartRaw, &out.Raw}} {
		if d, ok := m.deflate(*p.data); ok {
			*p.data = d
			out.deflated |= p.part
		}
	}
	payloads := []*[]byte{&out.Metadata, &out.Parsed, &out.Raw}
	if adopt && ownBuffers(payloads) {
		out.adopted = true
		for _, data := range payloads {
			*data = slices.Clip(*data)
		}
		return out
	}
	buf := make([]byte, 0, len(out.Metadata)+len(out.Parsed)+len(out.Raw))
	for _, data := range payloads {
		if *data == nil {
			continue
		}
		start := len(buf)
		buf = append(buf, *data...)
		*data = buf[start:len(buf):len(buf)]
	}
	return out
}

// ownBuffers reports whether the payloads lie in buffers of their own
// (see Email): each one either ends its buffer or is followed in it by the
// next one.
func ownBuffers(payloads []*[]byte) bool {
	var open []byte // a payload whose buffer goes on after it
	for _, data := range payloads {
		d := *data
		if len(d) == 0 {
			continue
		}
		if open != nil && (cap(open) != len(open)+cap(d) || &open[:len(open)+1][len(open)] != &d[0]) {
			return false
		}
		open = nil
		if cap(d) > len(d) {
			open = d
		}
	}
	return open == nil
}

// deflate returns data deflated when that saves at least 1/minSaving of
// it; sealed payloads are not tried.
func (m *Memory) deflate(data []byte) ([]byte, bool) {
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

// unpack is the Email of a stored one, its payloads inflated (without
// content: with none).
func (m *Memory) unpack(e *memEmail, withContent bool) (*Email, error) {
	out := e.Email
	if !withContent {
		out.Parsed, out.Raw = nil, nil
		return &out, nil
	}
	for _, p := range []struct {
		part Parts
		data *[]byte
	}{{PartParsed, &out.Parsed}, {PartRaw, &out.Raw}} {
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
func (m *Memory) inflate(data []byte) ([]byte, error) {
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
