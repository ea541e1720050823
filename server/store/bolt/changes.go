package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// The changes a log record holds, each a kind byte then its fields, each
// a uvarint length and the bytes: the same keys and values the bbolt file
// holds (an encrypted inbox's mail only in its encrypted form).
const (
	changePutInbox    byte = 1 // hash, inbox JSON; makes the inbox's mailbox
	changeDeleteInbox byte = 2 // hash; removes the inbox and its mailbox
	changePutEmail    byte = 3 // inbox hash, id, encoded email
	changeDeleteEmail byte = 4 // inbox hash, id
	changePut         byte = 5 // bucket, key, value (a top-level bucket's key)
	changeDelete      byte = 6 // bucket, key
	changeDeleteFrom  byte = 7 // bucket, prefix: every key with the prefix
	changeSign        byte = 8 // inbox hash, id, signature entry (signatures.go)
)

// changeFields is the number of fields of each kind of change.
var changeFields = [...]int{changePutInbox: 2, changeDeleteInbox: 1, changePutEmail: 3, changeDeleteEmail: 2,
	changePut: 3, changeDelete: 2, changeDeleteFrom: 2, changeSign: 3}

// changes makes changes to a bbolt transaction and records them for the
// write-ahead log. Every change sets a key to its final value (or removes
// it) and creates the buckets it needs, so replaying the record of a
// change the file already holds leaves the file as it is.
type changes struct {
	tx     *bbolt.Tx
	record []byte
}

func (c *changes) add(kind byte, fields ...[]byte) {
	c.record = append(c.record, kind)
	for _, f := range fields {
		c.record = binary.AppendUvarint(c.record, uint64(len(f)))
		c.record = append(c.record, f...)
	}
}

func (c *changes) putInbox(hash, data []byte) error {
	c.add(changePutInbox, hash, data)
	inboxes, err := c.tx.CreateBucketIfNotExists(bucketInboxes)
	if err != nil {
		return err
	}
	if err := inboxes.Put(hash, data); err != nil {
		return err
	}
	_, err = c.mailbox(hash)
	return err
}

func (c *changes) deleteInbox(hash []byte) error {
	c.add(changeDeleteInbox, hash)
	if inboxes := c.tx.Bucket(bucketInboxes); inboxes != nil {
		if err := inboxes.Delete(hash); err != nil {
			return err
		}
	}
	if err := dropCounts(c.tx, hash); err != nil {
		return err
	}
	if err := deleteSignatures(c.tx, hash, nil); err != nil {
		return err
	}
	emails := c.tx.Bucket(bucketEmails)
	if emails == nil {
		return nil
	}
	if err := emails.DeleteBucket(hash); err != nil && !errors.Is(err, bolterrors.ErrBucketNotFound) {
		return err
	}
	return nil
}

func (c *changes) putEmail(hash, id, value []byte) error {
	c.add(changePutEmail, hash, id, value)
	mb, err := c.mailbox(hash)
	if err != nil {
		return err
	}
	if err := c.account(mb, hash, id, value); err != nil {
		return err
	}
	if err := deleteSignatures(c.tx, hash, id); err != nil {
		return err
	}
	return mb.Put(id, value)
}

func (c *changes) deleteEmail(hash, id []byte) error {
	c.add(changeDeleteEmail, hash, id)
	mb := mailbox(c.tx, string(hash))
	if err := c.account(mb, hash, id, nil); err != nil {
		return err
	}
	if err := deleteSignatures(c.tx, hash, id); err != nil {
		return err
	}
	if mb != nil {
		return mb.Delete(id)
	}
	return nil
}

func (c *changes) put(bucket, key, value []byte) error {
	c.add(changePut, bucket, key, value)
	b, err := c.tx.CreateBucketIfNotExists(bucket)
	if err != nil {
		return err
	}
	return b.Put(key, value)
}

func (c *changes) delete(bucket, key []byte) error {
	c.add(changeDelete, bucket, key)
	if b := c.tx.Bucket(bucket); b != nil {
		return b.Delete(key)
	}
	return nil
}

func (c *changes) deleteFrom(bucket, prefix []byte) error {
	c.add(changeDeleteFrom, bucket, prefix)
	b := c.tx.Bucket(bucket)
	if b == nil {
		return nil
	}
	cur := b.Cursor()
	for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Seek(prefix) {
		if err := cur.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// mailbox returns the inbox's bucket of emails, made if missing.
func (c *changes) mailbox(hash []byte) (*bbolt.Bucket, error) {
	emails, err := c.tx.CreateBucketIfNotExists(bucketEmails)
	if err != nil {
		return nil, err
	}
	return emails.CreateBucketIfNotExists(hash)
}

// replay makes the changes of one log record.
func (c *changes) replay(record []byte) error {
	for len(record) > 0 {
		kind := record[0]
		record = record[1:]
		if int(kind) >= len(changeFields) || changeFields[kind] == 0 {
			return fmt.Errorf("replay: unknown change %d", kind)
		}
		var fields [3][]byte
		for i := range changeFields[kind] {
			size, used := binary.Uvarint(record)
			if used <= 0 || uint64(len(record)-used) < size {
				return errors.New("replay: truncated change")
			}
			fields[i] = record[used : used+int(size)]
			record = record[used+int(size):]
		}
		var err error
		switch kind {
		case changePutInbox:
			err = c.putInbox(fields[0], fields[1])
		case changeDeleteInbox:
			err = c.deleteInbox(fields[0])
		case changePutEmail:
			err = c.putEmail(fields[0], fields[1], fields[2])
		case changeDeleteEmail:
			err = c.deleteEmail(fields[0], fields[1])
		case changePut:
			err = c.put(fields[0], fields[1], fields[2])
		case changeDelete:
			err = c.delete(fields[0], fields[1])
		case changeDeleteFrom:
			err = c.deleteFrom(fields[0], fields[1])
		case changeSign:
			err = c.putSignatures(fields[0], fields[1], fields[2])
		}
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	return nil
}

// replay makes the log's changes in the file in one transaction, commits
// it (synced) and empties the log.
func replay(db *bbolt.DB, w *wal, records [][]byte) error {
	err := db.Update(func(tx *bbolt.Tx) error {
		return replayInto(tx, records)
	})
	if err != nil {
		return fmt.Errorf("replay write-ahead log: %w", err)
	}
	return w.reset()
}

// replayInto makes the changes of records in tx.
func replayInto(tx *bbolt.Tx, records [][]byte) error {
	c := &changes{tx: tx}
	for _, r := range records {
		if err := c.replay(r); err != nil {
			return err
		}
	}
	return nil
}
