package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sandview/server/store"
	"time"
)

// store.Email encoding: version, flags, receivedAt (unix nanoseconds, big endian),
// then metadata, parsed and raw, each prefixed by its length as a uvarint.
// The flags are the read flag and, shifted by unsignedShift, the Unsigned
// parts.
const (
	encodingVersion = 1
	flagRead        = 1 << 0
	unsignedShift   = 1
	headerSize      = 10
)

func unsignedParts(flags byte) store.Parts {
	return store.Parts(flags>>unsignedShift) & (store.PartParsed | store.PartRaw)
}

func encodeEmail(e *store.Email) []byte {
	buf := make([]byte, headerSize, headerSize+3*binary.MaxVarintLen64+int(e.Size()))
	buf[0] = encodingVersion
	if e.IsRead {
		buf[1] |= flagRead
	}
	buf[1] |= byte(e.Unsigned&(store.PartParsed|store.PartRaw)) << unsignedShift
	binary.BigEndian.PutUint64(buf[2:], uint64(e.ReceivedAt.UnixNano()))
	for _, part := range [][]byte{e.Metadata, e.Parsed, e.Raw} {
		buf = binary.AppendUvarint(buf, uint64(len(part)))
		buf = append(buf, part...)
	}
	return buf
}

// decodeEmail copies an encoded email out of a bbolt value (which is only
// valid inside its transaction).
func decodeEmail(k store.EmailKey, v []byte, withContent bool) (*store.Email, error) {
	if len(v) < headerSize || v[0] != encodingVersion {
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
		n, used := binary.Uvarint(rest)
		if used <= 0 || uint64(len(rest)-used) < n {
			return nil, fmt.Errorf("decode email %s: truncated value", k.ID)
		}
		*dst = append([]byte(nil), rest[used:used+int(n)]...)
		rest = rest[used+int(n):]
	}
	return e, nil
}

// payloadSize is the total size of the three parts of an encoded email,
// read without copying them.
func payloadSize(v []byte) (int64, error) {
	if len(v) < headerSize || v[0] != encodingVersion {
		return 0, errors.New("unknown encoding")
	}
	rest := v[headerSize:]
	var total int64
	for range 3 {
		n, used := binary.Uvarint(rest)
		if used <= 0 || uint64(len(rest)-used) < n {
			return 0, errors.New("truncated value")
		}
		total += int64(n)
		rest = rest[used+int(n):]
	}
	return total, nil
}
