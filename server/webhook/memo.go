package webhook

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
)

// memoEntry is what the engine remembers of an email.received for the
// stored and deleted events of the same email.
type memoEntry struct {
	inbox   string
	summary emailSummary
	passed  map[string]bool // filter verdicts by webhook id
}

// emailMemo remembers the latest emails, oldest evicted first. It is kept
// whether or not a webhook exists (a webhook created later gets the
// summary of an email that arrived before it), so it is built for the
// garbage collector: each email is one pointer-free record (its id, inbox,
// summary and verdicts, encoded), found through a map with no pointers:
// the collector marks one object per email and scans none of them.
type emailMemo struct {
	seed  maphash.Seed
	index map[uint64]int32 // hash of the email id → its slot in ring
	ring  []memoSlot
	next  int
}

// memoSlot is one remembered email: the hash of its id and its record
// (nil when the slot is free).
type memoSlot struct {
	key    uint64
	record []byte
}

func newEmailMemo(size int) *emailMemo {
	return &emailMemo{seed: maphash.MakeSeed(), index: make(map[uint64]int32), ring: make([]memoSlot, size)}
}

// put remembers entry for emailID, replacing what was remembered of it.
func (m *emailMemo) put(emailID string, entry memoEntry) {
	key := maphash.String(m.seed, emailID)
	record := encodeMemo(emailID, entry)
	if slot, ok := m.index[key]; ok {
		if id, _ := memoBytes(m.ring[slot].record); string(id) == emailID {
			m.ring[slot].record = record
			return
		}
		m.free(slot) // another email with the same hash: the older goes
	}
	if m.ring[m.next].record != nil {
		m.free(int32(m.next))
	}
	m.ring[m.next] = memoSlot{key: key, record: record}
	m.index[key] = int32(m.next)
	m.next = (m.next + 1) % len(m.ring)
}

// get is what is remembered of emailID.
func (m *emailMemo) get(emailID string) (memoEntry, bool) {
	slot, ok := m.find(emailID)
	if !ok {
		return memoEntry{}, false
	}
	return decodeMemo(m.ring[slot].record), true
}

func (m *emailMemo) forget(emailID string) {
	if slot, ok := m.find(emailID); ok {
		m.free(slot)
	}
}

func (m *emailMemo) forgetInbox(address string) {
	for i, s := range m.ring {
		if s.record == nil {
			continue
		}
		_, rest := memoBytes(s.record)
		if inbox, _ := memoField(rest); strings.EqualFold(inbox, address) {
			m.free(int32(i))
		}
	}
}

func (m *emailMemo) find(emailID string) (int32, bool) {
	slot, ok := m.index[maphash.String(m.seed, emailID)]
	if !ok {
		return 0, false
	}
	id, _ := memoBytes(m.ring[slot].record)
	return slot, string(id) == emailID
}

func (m *emailMemo) free(slot int32) {
	delete(m.index, m.ring[slot].key)
	m.ring[slot] = memoSlot{}
}

// encodeMemo writes an email's id and entry as length-prefixed fields: id,
// inbox, the summary's four fields, then each verdict as webhook id and
// "1" (passed) or "".
func encodeMemo(emailID string, e memoEntry) []byte {
	fields := []string{emailID, e.inbox, e.summary.From, e.summary.To, e.summary.Subject, e.summary.Preview}
	for id, pass := range e.passed {
		verdict := ""
		if pass {
			verdict = "1"
		}
		fields = append(fields, id, verdict)
	}
	n := 0
	for _, f := range fields {
		n += binary.MaxVarintLen32 + len(f)
	}
	out := make([]byte, 0, n)
	for _, f := range fields {
		out = binary.AppendUvarint(out, uint64(len(f)))
		out = append(out, f...)
	}
	return out[:len(out):len(out)]
}

// decodeMemo reads a record written by encodeMemo.
func decodeMemo(record []byte) memoEntry {
	var f [6]string
	rest := record
	for i := range f {
		f[i], rest = memoField(rest)
	}
	e := memoEntry{inbox: f[1], summary: emailSummary{From: f[2], To: f[3], Subject: f[4], Preview: f[5]}, passed: map[string]bool{}}
	for len(rest) > 0 {
		var id, verdict string
		id, rest = memoField(rest)
		verdict, rest = memoField(rest)
		e.passed[id] = verdict != ""
	}
	return e
}

// memoField is the first length-prefixed field of b and what follows it.
func memoField(b []byte) (string, []byte) {
	f, rest := memoBytes(b)
	return string(f), rest
}

// memoBytes is memoField without the copy.
func memoBytes(b []byte) ([]byte, []byte) {
	n, used := binary.Uvarint(b)
	if used <= 0 || uint64(len(b)-used) < n {
		return nil, nil
	}
	end := used + int(n)
	return b[used:end], b[end:]
}
