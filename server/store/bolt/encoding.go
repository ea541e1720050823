package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sandview/server/store"
	"time"
)

// store.Email encoding: version, flags, receivedAt (unix nanoseconds, big
// endian), then metadata, parsed and raw. The flags are the read flag and,
// shifted by unsignedShift, the Unsigned parts as the email was put (its
// signatures, kept apart, sign some: signatures.go).
//
// Version 1 (written by earlier releases, still read) holds each part as
// its length, a uvarint, and its bytes. Version 2 holds each part as its
// length, the length of its segments (both uvarints) and the segments:
// each a uvarint count of literal bytes, those bytes, and a uvarint count
// of zero bytes that follow them. Runs of zeroRun zeros or more are left
// out that way: an encrypted payload stored unsigned carries a
// placeholder of zeros where its signature goes (3,309 bytes for
// ML-DSA-65), which then costs the log and the file nothing.
const (
	encodingV1      = 1
	encodingVersion = 2
	flagRead        = 1 << 0
	unsignedShift   = 1
	headerSize      = 10
	zeroRun         = 32
	// maxPart bounds the length a version 2 part claims (no mail comes
	// near it), so that a damaged value is an error, not a huge allocation.
	maxPart = 1 << 30
)

var zeroBlock [zeroRun]byte

func unsignedParts(flags byte) store.Parts {
	return store.Parts(flags>>unsignedShift) & (store.PartParsed | store.PartRaw)
}

func encodeEmail(e *store.Email) []byte {
	parts := [][]byte{e.Metadata, e.Parsed, e.Raw}
	var runs [3][][2]int
	size := headerSize
	for i, part := range parts {
		runs[i] = zeroRuns(part)
		size += sparseSize(part, runs[i])
	}
	buf := make([]byte, headerSize, size)
	buf[0] = encodingVersion
	if e.IsRead {
		buf[1] |= flagRead
	}
	buf[1] |= byte(e.Unsigned&(store.PartParsed|store.PartRaw)) << unsignedShift
	binary.BigEndian.PutUint64(buf[2:], uint64(e.ReceivedAt.UnixNano()))
	for i, part := range parts {
		buf = appendSparse(buf, part, runs[i])
	}
	return buf
}

// zeroRuns returns where p holds runs of zeroRun zeros or more, as
// [start, end) pairs.
func zeroRuns(p []byte) [][2]int {
	var runs [][2]int
	for i := 0; i < len(p); {
		j := bytes.Index(p[i:], zeroBlock[:])
		if j < 0 {
			break
		}
		start := i + j
		end := start + zeroRun
		for end < len(p) && p[end] == 0 {
			end++
		}
		runs = append(runs, [2]int{start, end})
		i = end
	}
	return runs
}

// segmentsSize is the size of p's segments without its zero runs.
func segmentsSize(p []byte, runs [][2]int) int {
	n, at := 0, 0
	for _, r := range runs {
		n += uvarintSize(r[0]-at) + r[0] - at + uvarintSize(r[1]-r[0])
		at = r[1]
	}
	return n + uvarintSize(len(p)-at) + len(p) - at + 1
}

// sparseSize is the size of p's version 2 encoding.
func sparseSize(p []byte, runs [][2]int) int {
	seg := segmentsSize(p, runs)
	return uvarintSize(len(p)) + uvarintSize(seg) + seg
}

func uvarintSize(x int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(x))
}

// appendSparse appends p's version 2 encoding, its zero runs left out.
func appendSparse(buf, p []byte, runs [][2]int) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(p)))
	buf = binary.AppendUvarint(buf, uint64(segmentsSize(p, runs)))
	at := 0
	for _, r := range runs {
		buf = binary.AppendUvarint(buf, uint64(r[0]-at))
		buf = append(buf, p[at:r[0]]...)
		buf = binary.AppendUvarint(buf, uint64(r[1]-r[0]))
		at = r[1]
	}
	buf = binary.AppendUvarint(buf, uint64(len(p)-at))
	buf = append(buf, p[at:]...)
	return binary.AppendUvarint(buf, 0)
}

// decodeEmail copies an encoded email out of a bbolt value (which is only
// valid inside its transaction), as it was put: without the signatures
// kept apart (see readEmail).
func decodeEmail(k store.EmailKey, v []byte, withContent bool) (*store.Email, error) {
	if len(v) < headerSize || (v[0] != encodingV1 && v[0] != encodingVersion) {
		return nil, fmt.Errorf("decode email %s: unknown encoding", k.ID)
	}
	e := &store.Email{
		ID:         k.ID,
		InboxHash:  k.InboxHash,
		IsRead:     v[1]&flagRead != 0,
		Unsigned:   unsignedParts(v[1]),
		ReceivedAt: time.Unix(0, int64(binary.BigEndian.Uint64(v[2:]))).UTC(),
	}
	rest := v[headerSize:]
	parts := []*[]byte{&e.Metadata, &e.Parsed, &e.Raw}
	if !withContent {
		parts = parts[:1]
	}
	for _, dst := range parts {
		var err error
		if rest, err = nextPart(v[0], rest, dst); err != nil {
			return nil, fmt.Errorf("decode email %s: %w", k.ID, err)
		}
	}
	return e, nil
}

// nextPart reads the part at the start of rest, in the encoding of
// version, into *dst (a copy; dst nil skips it) and returns what follows
// it.
func nextPart(version byte, rest []byte, dst *[]byte) ([]byte, error) {
	n, used := binary.Uvarint(rest)
	if used <= 0 {
		return nil, errors.New("truncated value")
	}
	rest = rest[used:]
	if version == encodingV1 {
		if uint64(len(rest)) < n {
			return nil, errors.New("truncated value")
		}
		if dst != nil {
			*dst = append([]byte(nil), rest[:n]...)
		}
		return rest[n:], nil
	}
	seg, used := binary.Uvarint(rest)
	if used <= 0 || uint64(len(rest)-used) < seg || n > maxPart {
		return nil, errors.New("truncated value")
	}
	body := rest[used : used+int(seg)]
	if dst != nil {
		out, err := unsparse(body, int(n))
		if err != nil {
			return nil, err
		}
		*dst = out
	}
	return rest[used+int(seg):], nil
}

// unsparse expands the segments of a part of n bytes.
func unsparse(body []byte, n int) ([]byte, error) {
	out := make([]byte, 0, n) // zeroed: a zero run only extends it
	for len(body) > 0 {
		lit, used := binary.Uvarint(body)
		if used <= 0 || uint64(len(body)-used) < lit || uint64(n-len(out)) < lit {
			return nil, errors.New("bad segment")
		}
		out = append(out, body[used:used+int(lit)]...)
		body = body[used+int(lit):]
		zeros, used := binary.Uvarint(body)
		if used <= 0 || uint64(n-len(out)) < zeros {
			return nil, errors.New("bad segment")
		}
		out = out[:len(out)+int(zeros)]
		body = body[used:]
	}
	if len(out) != n {
		return nil, errors.New("segments shorter than their part")
	}
	return out, nil
}

// payloadSize is the total size of the three parts of an encoded email,
// read without copying them.
func payloadSize(v []byte) (int64, error) {
	if len(v) < headerSize || (v[0] != encodingV1 && v[0] != encodingVersion) {
		return 0, errors.New("unknown encoding")
	}
	rest := v[headerSize:]
	var total int64
	for range 3 {
		n, _ := binary.Uvarint(rest) // nextPart checks it
		var err error
		if rest, err = nextPart(v[0], rest, nil); err != nil {
			return 0, err
		}
		total += int64(n)
	}
	return total, nil
}
