package bolt

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"sandview/server/store"
)

// TestEncodingLeavesOutZeroRuns: every payload comes back as it was, runs
// of zeros (long enough) cost a few bytes, and a value of the first
// version (earlier releases) still decodes.
func TestEncodingLeavesOutZeroRuns(t *testing.T) {
	long := bytes.Repeat([]byte{0}, 5000)
	mixed := append(append(append([]byte("head"), long...), "middle\x00\x00tail"...), long...)
	payloads := [][]byte{nil, {}, {0}, []byte("plain"), long, mixed, bytes.Repeat([]byte{0}, zeroRun-1), append([]byte("x"), make([]byte, zeroRun)...)}
	for i, p := range payloads {
		e := &store.Email{ID: "id", InboxHash: "h", ReceivedAt: time.Unix(7, 0).UTC(), IsRead: true, Unsigned: store.PartRaw,
			Metadata: []byte("meta"), Parsed: p, Raw: mixed}
		v := encodeEmail(e)
		if len(v) > 100+len(p)-bytes.Count(p, []byte{0}) {
			t.Errorf("payload %d: %d bytes encoded, its zeros kept", i, len(v))
		}
		got, err := decodeEmail(store.EmailKey{InboxHash: "h", ID: "id"}, v, true)
		if err != nil || !bytes.Equal(got.Parsed, p) || !bytes.Equal(got.Raw, mixed) || string(got.Metadata) != "meta" ||
			!got.IsRead || got.Unsigned != store.PartRaw || !got.ReceivedAt.Equal(e.ReceivedAt) {
			t.Fatalf("payload %d: decoded %+v, %v", i, got, err)
		}
		if size, err := payloadSize(v); err != nil || size != e.Size() {
			t.Fatalf("payload %d: size %d, %v; want %d", i, size, err, e.Size())
		}
		for cut := range len(v) {
			if _, err := decodeEmail(store.EmailKey{ID: "id"}, v[:cut], true); err == nil {
				t.Fatalf("payload %d: a value cut at %d of %d decodes", i, cut, len(v))
			}
		}
	}
	v1 := []byte{encodingV1, flagRead, 0, 0, 0, 0, 0, 0, 0, 1}
	for _, part := range []string{"m", "parsed", "raw"} {
		v1 = binary.AppendUvarint(v1, uint64(len(part)))
		v1 = append(v1, part...)
	}
	got, err := decodeEmail(store.EmailKey{ID: "old"}, v1, true)
	if err != nil || string(got.Metadata) != "m" || string(got.Parsed) != "parsed" || string(got.Raw) != "raw" || !got.IsRead {
		t.Fatalf("version 1: %+v, %v", got, err)
	}
	if size, err := payloadSize(v1); err != nil || size != 10 {
		t.Fatalf("version 1 size %d, %v", size, err)
	}
}
