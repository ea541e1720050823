package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"sandview/server/store"
)

// bucketIndex holds, beside emails/<hash>/<id>, index/<hash>/<id> = the
// email's flags byte (its signatures applied, signatures.go) and its
// payload size (a uvarint): what start-up reads
// of every stored email (ForEachEmail) without touching the email's pages,
// so a start over many stored mails reads a few bytes of each instead of
// the whole file. The changes that write an email write its entry in the
// same transaction (and a replay rewrites both); a file of an earlier
// release, without the bucket, gets it built once when it is opened.
var bucketIndex = []byte("index")

// indexEntry is the index value of an encoded email with the flags.
func indexEntry(value []byte, flags byte) ([]byte, error) {
	size, err := payloadSize(value)
	if err != nil {
		return nil, err
	}
	return binary.AppendUvarint([]byte{flags}, uint64(size)), nil
}

// decodeIndexEntry reads an index value.
func decodeIndexEntry(v []byte) (flags byte, size int64, err error) {
	if len(v) < 2 {
		return 0, 0, errors.New("short index entry")
	}
	n, used := binary.Uvarint(v[1:])
	if used <= 0 {
		return 0, 0, errors.New("bad index entry")
	}
	return v[0], int64(n), nil
}

// putIndex writes the index entry of an email the transaction puts.
func putIndex(tx *bbolt.Tx, hash, id, value []byte) error {
	if len(value) < headerSize {
		return fmt.Errorf("index email %s: a value of %d bytes", id, len(value))
	}
	return putIndexFlags(tx, hash, id, value, value[1])
}

// putIndexFlags writes the index entry of an email with the flags it
// has (those of its value, but for the parts its signatures sign).
func putIndexFlags(tx *bbolt.Tx, hash, id, value []byte, flags byte) error {
	entry, err := indexEntry(value, flags)
	if err != nil {
		return fmt.Errorf("index email %s: %w", id, err)
	}
	index, err := tx.CreateBucketIfNotExists(bucketIndex)
	if err != nil {
		return err
	}
	b, err := index.CreateBucketIfNotExists(hash)
	if err != nil {
		return err
	}
	return b.Put(id, entry)
}

// deleteIndex removes the index entry of an email (id) or of every email
// of an inbox (id nil).
func deleteIndex(tx *bbolt.Tx, hash, id []byte) error {
	index := tx.Bucket(bucketIndex)
	if index == nil {
		return nil
	}
	if id == nil {
		if err := index.DeleteBucket(hash); err != nil && !errors.Is(err, bolterrors.ErrBucketNotFound) {
			return err
		}
		return nil
	}
	if b := index.Bucket(hash); b != nil {
		return b.Delete(id)
	}
	return nil
}

// buildIndex makes the index of a file that has emails but no index (one
// written by an earlier release), in one transaction.
func buildIndex(db *bbolt.DB) error {
	need := func(tx *bbolt.Tx) bool { return tx.Bucket(bucketEmails) != nil && tx.Bucket(bucketIndex) == nil }
	var needed bool
	if err := db.View(func(tx *bbolt.Tx) error { needed = need(tx); return nil }); err != nil || !needed {
		return err // a write transaction (a synced commit) only when there is work
	}
	err := db.Update(func(tx *bbolt.Tx) error {
		emails := tx.Bucket(bucketEmails)
		if !need(tx) {
			return nil
		}
		if _, err := tx.CreateBucket(bucketIndex); err != nil {
			return err
		}
		return emails.ForEachBucket(func(hash []byte) error {
			return emails.Bucket(hash).ForEach(func(id, v []byte) error {
				return putIndex(tx, hash, id, v)
			})
		})
	})
	if err != nil {
		return fmt.Errorf("build the email index: %w", err)
	}
	return nil
}

// forEachIndexed calls fn with every indexed email.
func forEachIndexed(tx *bbolt.Tx, fn func(store.EmailInfo) error) error {
	index := tx.Bucket(bucketIndex)
	if index == nil {
		return nil // a new store: the first email makes the bucket
	}
	return index.ForEachBucket(func(hash []byte) error {
		inbox := string(hash)
		c := index.Bucket(hash).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			flags, size, err := decodeIndexEntry(v)
			if err != nil {
				return fmt.Errorf("email %s: %w", k, err)
			}
			info := store.EmailInfo{EmailKey: store.EmailKey{InboxHash: inbox, ID: string(k)}, Size: size, Unsigned: unsignedParts(flags)}
			if err := fn(info); err != nil {
				return err
			}
		}
		return nil
	})
}
