package store

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"

	"sandview/crypto"
)

// The stored form of a memory store's emails: plain payloads deflated,
// each email's payloads in one allocation.

// minSaving is the part of a payload deflating must save for the deflated
// form to be kept.
const minSaving = 8 // an eighth

// pack is the stored form of e, its three payloads in one allocation
// (three would each be rounded up to a size class); it deflates outside
// the lock.
func (m *Memory) pack(e *Email) *memEmail {
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
	total := len(out.Metadata) + len(out.Parsed) + len(out.Raw)
	buf, shared := oneBuffer(total, payloads)
	if !shared {
		buf = make([]byte, 0, total)
	}
	for _, data := range payloads {
		if *data == nil {
			continue
		}
		start := len(buf)
		if !shared {
			buf = append(buf, *data...)
		} else {
			buf = buf[:start+len(*data)]
		}
		*data = buf[start:len(buf):len(buf)]
	}
	return out
}

// oneBuffer reports whether the payloads, total bytes in all, lie one
// after another in one buffer that ends with them (see Email), and returns
// that buffer, empty, if so.
func oneBuffer(total int, payloads []*[]byte) ([]byte, bool) {
	first := *payloads[0]
	if len(first) == 0 || cap(first) != total {
		return nil, false
	}
	all := first[:total]
	at := 0
	for _, data := range payloads {
		if len(*data) > 0 && &all[at] != &(*data)[0] {
			return nil, false
		}
		at += len(*data)
	}
	return all[:0], true
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
