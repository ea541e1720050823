package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// The counters the leader's periodic work reads (cluster.go), kept in the
// file beside the emails by the changes that put and delete them
// (changes.account), so that a start reads none of the emails and the
// work costs the inboxes, not the emails, when there is nothing to do:
// counts/<hash> = the inbox's email count and payload bytes (uvarints);
// unsigned/<hash> 0x00 <id> = when an email with unsigned payloads was
// stored (unix nanoseconds, big endian). Each is derived from what the
// file held before the change, so replaying a change the file holds
// leaves them as they are. A file of an earlier release gets them built
// once when it is opened (buildCounts).
var (
	bucketCounts   = []byte("counts")
	bucketUnsigned = []byte("unsigned")
)

// emailFacts reads what the counters count of an encoded email whose
// flags byte is flags (signedFlags for a stored one).
func emailFacts(v []byte, flags byte) (size int64, unsigned bool, err error) {
	size, err = payloadSize(v)
	if err != nil {
		return 0, false, err
	}
	return size, unsignedParts(flags) != 0, nil
}

// unsignedKey is an email's key in the unsigned bucket.
func unsignedKey(hash, id []byte) []byte {
	k := make([]byte, 0, len(hash)+1+len(id))
	return append(append(append(k, hash...), 0), id...)
}

// splitUnsignedKey is unsignedKey's inverse.
func splitUnsignedKey(k []byte) (hash, id string, ok bool) {
	i := bytes.IndexByte(k, 0)
	if i < 0 {
		return "", "", false
	}
	return string(k[:i]), string(k[i+1:]), true
}

// inboxCounts decodes a counts value.
func inboxCounts(v []byte) (count, size int64) {
	n, used := binary.Uvarint(v)
	if used <= 0 {
		return 0, 0
	}
	s, _ := binary.Uvarint(v[used:])
	return int64(n), int64(s)
}

// account updates the counters for the email id of the inbox hash,
// about to become value (nil: deleted); mb is the inbox's mailbox (nil:
// none), which still holds the email as it was.
func (c *changes) account(mb *bbolt.Bucket, hash, id, value []byte) error {
	var count, size int64
	wasUnsigned, isUnsigned := false, false
	if mb != nil {
		if old := mb.Get(id); old != nil {
			oldSize, unsigned, err := emailFacts(old, signedFlags(c.tx, hash, id, old))
			if err != nil {
				return fmt.Errorf("count email %s: %w", id, err)
			}
			count, size, wasUnsigned = -1, -oldSize, unsigned
		}
	}
	if value != nil {
		newSize, unsigned, err := emailFacts(value, value[1])
		if err != nil {
			return fmt.Errorf("count email %s: %w", id, err)
		}
		count, size, isUnsigned = count+1, size+newSize, unsigned
	}
	if err := addCounts(c.tx, hash, count, size); err != nil {
		return err
	}
	if wasUnsigned == isUnsigned {
		return nil
	}
	unsigned, err := c.tx.CreateBucketIfNotExists(bucketUnsigned)
	if err != nil {
		return err
	}
	if !isUnsigned {
		return unsigned.Delete(unsignedKey(hash, id))
	}
	return unsigned.Put(unsignedKey(hash, id), binary.BigEndian.AppendUint64(nil, uint64(time.Now().UnixNano())))
}

// addCounts adds to an inbox's counters.
func addCounts(tx *bbolt.Tx, hash []byte, count, size int64) error {
	if count == 0 && size == 0 {
		return nil
	}
	counts, err := tx.CreateBucketIfNotExists(bucketCounts)
	if err != nil {
		return err
	}
	n, s := inboxCounts(counts.Get(hash))
	n, s = max(n+count, 0), max(s+size, 0)
	return counts.Put(hash, binary.AppendUvarint(binary.AppendUvarint(nil, uint64(n)), uint64(s)))
}

// dropCounts removes the counters of a deleted inbox.
func dropCounts(tx *bbolt.Tx, hash []byte) error {
	if counts := tx.Bucket(bucketCounts); counts != nil {
		if err := counts.Delete(hash); err != nil {
			return err
		}
	}
	unsigned := tx.Bucket(bucketUnsigned)
	if unsigned == nil {
		return nil
	}
	prefix := append(append([]byte(nil), hash...), 0)
	cur := unsigned.Cursor()
	for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Seek(prefix) {
		if err := cur.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// bucketIndex is the per-email index of earlier releases (flags and
// size, read at start-up then); the counters replaced it, and an open
// drops it.
var bucketIndex = []byte("index")

// buildCounts makes the counters of a file that has emails but no
// counters (one written by an earlier release), in one transaction: the
// one start that reads every stored email. Its unsigned emails count as
// stored long ago. It drops the earlier releases' index too.
func buildCounts(db *bbolt.DB) error {
	need := func(tx *bbolt.Tx) bool {
		return (tx.Bucket(bucketEmails) != nil && tx.Bucket(bucketCounts) == nil) || tx.Bucket(bucketIndex) != nil
	}
	var needed bool
	if err := db.View(func(tx *bbolt.Tx) error { needed = need(tx); return nil }); err != nil || !needed {
		return err // a write transaction (a synced commit) only when there is work
	}
	err := db.Update(func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketIndex) != nil {
			if err := tx.DeleteBucket(bucketIndex); err != nil {
				return err
			}
		}
		emails := tx.Bucket(bucketEmails)
		if emails == nil || tx.Bucket(bucketCounts) != nil {
			return nil
		}
		if _, err := tx.CreateBucket(bucketCounts); err != nil {
			return err
		}
		unsigned, err := tx.CreateBucketIfNotExists(bucketUnsigned)
		if err != nil {
			return err
		}
		return emails.ForEachBucket(func(hash []byte) error {
			var count, size int64
			err := emails.Bucket(hash).ForEach(func(id, v []byte) error {
				n, isUnsigned, err := emailFacts(v, signedFlags(tx, hash, id, v))
				if err != nil {
					return fmt.Errorf("count email %s: %w", id, err)
				}
				count, size = count+1, size+n
				if isUnsigned {
					return unsigned.Put(unsignedKey(hash, id), make([]byte, 8))
				}
				return nil
			})
			if err != nil {
				return err
			}
			return addCounts(tx, hash, count, size)
		})
	})
	if err != nil {
		return fmt.Errorf("build the email counters: %w", err)
	}
	return nil
}
