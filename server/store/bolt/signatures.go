package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"sandview/server/store"
)

// bucketSignatures holds, beside emails/<hash>/<id>, signatures/<hash>/<id>:
// what SetSigned changed in the email's parsed and raw payloads (their
// signatures, made where the placeholders lay), so that signing an email
// writes those bytes and its index entry instead of the whole email again.
// The email is signed in the parts the entry names; reading it applies the
// entry (readEmail). Putting an email whole (changePutEmail) drops its
// entry, as does deleting it or its inbox.
//
// An entry is the parts it signs (one byte), then for the parsed and the
// raw payload the number of changed runs and each run: its offset after
// the end of the run before, its length (uvarints) and its bytes.
var bucketSignatures = []byte("signatures")

// signatureGap is how many equal bytes a changed run may span before it
// ends (a run costs its offset and length).
const signatureGap = 8

// run is a [start, end) range of a payload.
type run [2]int

// diffRuns returns the runs where cur differs from old (of equal length).
func diffRuns(old, cur []byte) []run {
	var runs []run
	n := len(cur)
	for i := 0; i < n; {
		for i+64 <= n && bytes.Equal(old[i:i+64], cur[i:i+64]) {
			i += 64
		}
		for i < n && old[i] == cur[i] {
			i++
		}
		if i == n {
			break
		}
		end := i + 1
		for j := end; j < n && j < end+signatureGap; j++ {
			if old[j] != cur[j] {
				end = j + 1
			}
		}
		runs = append(runs, run{i, end})
		i = end
	}
	return runs
}

// signatureEntry returns the entry taking base's parsed and raw payloads
// to signed's, signing parts; ok is false when they differ in length or
// in more than three quarters of their bytes (the email is then put
// whole). The signatures of a small mail are most of its two payloads:
// 6.6 KB of about 10 KB.
func signatureEntry(base, signed *store.Email, parts store.Parts) (entry []byte, ok bool) {
	pairs := [2][2][]byte{{base.Parsed, signed.Parsed}, {base.Raw, signed.Raw}}
	var runs [2][]run
	size, changed := 1, 0
	for i, p := range pairs {
		if len(p[0]) != len(p[1]) {
			return nil, false
		}
		runs[i] = diffRuns(p[0], p[1])
		size += binary.MaxVarintLen64
		for _, r := range runs[i] {
			changed += r[1] - r[0]
			size += 2*binary.MaxVarintLen64 + r[1] - r[0]
		}
	}
	if 4*changed > 3*(len(base.Parsed)+len(base.Raw)) {
		return nil, false
	}
	entry = make([]byte, 1, size)
	entry[0] = byte(parts)
	for i, p := range pairs {
		entry = binary.AppendUvarint(entry, uint64(len(runs[i])))
		at := 0
		for _, r := range runs[i] {
			entry = binary.AppendUvarint(entry, uint64(r[0]-at))
			entry = binary.AppendUvarint(entry, uint64(r[1]-r[0]))
			entry = append(entry, p[1][r[0]:r[1]]...)
			at = r[1]
		}
	}
	return entry, true
}

// applySignatures applies an entry to e (decoded with its content, or
// without: then only its Unsigned parts change).
func applySignatures(e *store.Email, entry []byte) error {
	if len(entry) < 1 {
		return errors.New("empty signature entry")
	}
	e.Unsigned &^= store.Parts(entry[0])
	if e.Parsed == nil && e.Raw == nil {
		return nil
	}
	rest := entry[1:]
	for _, p := range []*[]byte{&e.Parsed, &e.Raw} {
		count, used := binary.Uvarint(rest)
		if used <= 0 {
			return errors.New("truncated signature entry")
		}
		rest = rest[used:]
		at := uint64(0)
		for range count {
			off, used := binary.Uvarint(rest)
			if used <= 0 {
				return errors.New("truncated signature entry")
			}
			rest = rest[used:]
			n, used := binary.Uvarint(rest)
			if used <= 0 || uint64(len(rest)-used) < n {
				return errors.New("truncated signature entry")
			}
			rest = rest[used:]
			at += off
			if at > uint64(len(*p)) || uint64(len(*p))-at < n {
				return errors.New("signature entry past its payload")
			}
			copy((*p)[at:], rest[:n])
			at += n
			rest = rest[n:]
		}
	}
	return nil
}

// readEmail decodes the email v of the inbox's mailbox with its
// signatures applied.
func readEmail(tx *bbolt.Tx, k store.EmailKey, v []byte, withContent bool) (*store.Email, error) {
	e, err := decodeEmail(k, v, withContent)
	if err != nil || e.Unsigned == 0 {
		return e, err
	}
	if sigs := signaturesOf(tx, []byte(k.InboxHash)); sigs != nil {
		if entry := sigs.Get([]byte(k.ID)); entry != nil {
			if err := applySignatures(e, entry); err != nil {
				return nil, fmt.Errorf("email %s: %w", k.ID, err)
			}
		}
	}
	return e, nil
}

// signaturesOf is the inbox's bucket of signature entries, or nil.
func signaturesOf(tx *bbolt.Tx, hash []byte) *bbolt.Bucket {
	sigs := tx.Bucket(bucketSignatures)
	if sigs == nil {
		return nil
	}
	return sigs.Bucket(hash)
}

// putSignatures records an email's signature entry, and takes the email
// out of the unsigned set once it signs every part; nothing when the
// email is gone.
func (c *changes) putSignatures(hash, id, entry []byte) error {
	c.add(changeSign, hash, id, entry)
	mb := mailbox(c.tx, string(hash))
	if mb == nil || len(entry) < 1 {
		return nil
	}
	v := mb.Get(id)
	if v == nil {
		return nil
	}
	sigs, err := c.tx.CreateBucketIfNotExists(bucketSignatures)
	if err != nil {
		return err
	}
	inbox, err := sigs.CreateBucketIfNotExists(hash)
	if err != nil {
		return err
	}
	if err := inbox.Put(id, entry); err != nil {
		return err
	}
	if unsignedParts(v[1]&^(entry[0]<<unsignedShift)) != 0 {
		return nil
	}
	if unsigned := c.tx.Bucket(bucketUnsigned); unsigned != nil {
		return unsigned.Delete(unsignedKey(hash, id))
	}
	return nil
}

// signedFlags is the flags byte of the stored email v (hash, id) with
// the parts its signature entry signs marked signed.
func signedFlags(tx *bbolt.Tx, hash, id, v []byte) byte {
	if sigs := signaturesOf(tx, hash); sigs != nil {
		if entry := sigs.Get(id); len(entry) > 0 {
			return v[1] &^ (entry[0] << unsignedShift)
		}
	}
	return v[1]
}

// deleteSignatures removes the signature entry of an email (id) or of
// every email of an inbox (id nil).
func deleteSignatures(tx *bbolt.Tx, hash, id []byte) error {
	sigs := tx.Bucket(bucketSignatures)
	if sigs == nil {
		return nil
	}
	if id == nil {
		if err := sigs.DeleteBucket(hash); err != nil && !errors.Is(err, bolterrors.ErrBucketNotFound) {
			return err
		}
		return nil
	}
	if inbox := sigs.Bucket(hash); inbox != nil && inbox.Get(id) != nil {
		return inbox.Delete(id)
	}
	return nil
}
