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

// pack is the stored form of e, its payloads laid out as Layout says; it
// deflates outside the lock. When adopt is set, payloads that already lie
// so (see Email) are kept as they are, not copied.
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
	groups, totals := Layout([3]int{len(out.Metadata), len(out.Parsed), len(out.Raw)})
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

// Layout is how the memory store lays out an email's payloads (sizes:
// metadata, parsed, raw) in allocations: in one, or in two when those
// round up to less (an encrypted mail of 15.3 KB takes 16 KB in one, 15.6
// KB in two). Payload i goes in allocation groups[i], of totals[groups[i]]
// bytes, after the payloads before it in the same one.
func Layout(sizes [3]int) (groups [3]int, totals [2]int) {
	all := sizes[0] + sizes[1] + sizes[2]
	best := allocated(all)
	for alone := range sizes { // one payload in an allocation of its own
		if sizes[alone] == 0 || sizes[alone] == all {
			continue
		}
		if cost := allocated(all-sizes[alone]) + allocated(sizes[alone]); cost < best {
			best = cost
			groups = [3]int{}
			groups[alone] = 1
		}
	}
	for i, n := range sizes {
		totals[groups[i]] += n
	}
	return groups, totals
}

// allocClasses are the sizes the Go allocator rounds an allocation of 1 KB
// to 32 KB up to (runtime's size classes; larger ones take whole 8 KB
// pages). TestAllocClasses checks them against the running allocator.
var allocClasses = [...]int{1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456,
	4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336,
	16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// allocated is about what an allocation of n bytes takes (below 1 KB, n).
func allocated(n int) int {
	const page = 8 << 10
	switch i, _ := slices.BinarySearch(allocClasses[:], n); {
	case n < allocClasses[0]:
		return n
	case i < len(allocClasses):
		return allocClasses[i]
	default:
		return (n + page - 1) / page * page
	}
}

// laidOut reports whether the payloads lie as Layout lays them out (see
// Email): those of an allocation one after another, in order, in a buffer
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
