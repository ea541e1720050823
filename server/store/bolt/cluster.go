package bolt

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
)

// cluster is the bbolt store's part of store.Cluster (Lead and Secret
// are store.Solo's). Each call reads first, outside the committer, and
// writes only when there is something to delete: the counters
// (counts.go) make the read cost the inboxes, not the emails.
type cluster struct{ b *Store }

// ExpireInboxes implements store.Cluster: the inboxes go as DeleteInbox
// takes them.
func (cl cluster) ExpireInboxes(ctx context.Context, now time.Time) ([]store.ExpiredInbox, error) {
	b := cl.b
	var expired []string
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		expired, err = expiredInboxes(tx, now)
		return err
	})
	if err != nil || len(expired) == 0 {
		return nil, err
	}
	var out []store.ExpiredInbox
	err = b.write(ctx, nil, func(c *changes) error {
		out = out[:0]
		gone, err := expiredInboxes(c.tx, now) // as they are now
		if err != nil {
			return err
		}
		for _, hash := range gone {
			in, err := readInbox(c.tx, hash)
			if err != nil {
				return err
			}
			var ids []string
			if mb := mailbox(c.tx, hash); mb != nil {
				cur := mb.Cursor()
				for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
					ids = append(ids, string(k))
				}
			}
			if err := c.deleteInbox([]byte(hash)); err != nil {
				return err
			}
			out = append(out, store.ExpiredInbox{Inbox: in, EmailIDs: ids})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("expire inboxes: %w", err)
	}
	for _, gone := range out {
		b.Chaos.ForgetInbox(gone.Hash)
		if err := b.Webhooks.ForgetInbox(ctx, gone.Hash); err != nil {
			return out, err
		}
	}
	return out, nil
}

// expiredInboxes lists the hashes of the inboxes expired by now.
func expiredInboxes(tx *bbolt.Tx, now time.Time) ([]string, error) {
	inboxes := tx.Bucket(bucketInboxes)
	if inboxes == nil {
		return nil, nil
	}
	var out []string
	err := inboxes.ForEach(func(k, v []byte) error {
		var in struct {
			ExpiresAt time.Time `json:"expiresAt"`
		}
		if err := json.Unmarshal(v, &in); err != nil {
			return fmt.Errorf("decode inbox %s: %w", k, err)
		}
		if !now.Before(in.ExpiresAt) {
			out = append(out, string(k))
		}
		return nil
	})
	return out, err
}

// readInbox decodes a stored inbox.
func readInbox(tx *bbolt.Tx, hash string) (store.Inbox, error) {
	var in store.Inbox
	inboxes := tx.Bucket(bucketInboxes)
	if inboxes == nil {
		return in, store.ErrNotFound
	}
	v := inboxes.Get([]byte(hash))
	if v == nil {
		return in, store.ErrNotFound
	}
	return in, decodeInbox(hash, v, &in)
}

// EnforceLimits implements store.Cluster.
func (cl cluster) EnforceLimits(ctx context.Context, maxPerInbox int, maxBytes int64) ([]store.EmailKey, error) {
	b := cl.b
	if maxPerInbox <= 0 && maxBytes <= 0 {
		return nil, nil
	}
	over := false
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		over = overLimits(tx, maxPerInbox, maxBytes)
		return nil
	})
	if err != nil || !over {
		return nil, err
	}
	var victims []store.EmailKey
	err = b.write(ctx, nil, func(c *changes) error {
		var err error
		victims, err = evict(c, maxPerInbox, maxBytes)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("enforce storage limits: %w", err)
	}
	slices.SortFunc(victims, store.CompareKeys)
	return victims, nil
}

// overLimits reports whether an inbox holds more than maxPerInbox emails
// or all more than maxBytes (0: no limit).
func overLimits(tx *bbolt.Tx, maxPerInbox int, maxBytes int64) bool {
	counts := tx.Bucket(bucketCounts)
	if counts == nil {
		return false
	}
	var total int64
	over := false
	_ = counts.ForEach(func(_, v []byte) error {
		n, size := inboxCounts(v)
		total += size
		over = over || (maxPerInbox > 0 && n > int64(maxPerInbox))
		return nil
	})
	return over || (maxBytes > 0 && total > maxBytes)
}

// evict deletes the oldest emails beyond maxPerInbox in each inbox, then
// the oldest of all beyond maxBytes, and returns them.
func evict(c *changes, maxPerInbox int, maxBytes int64) ([]store.EmailKey, error) {
	counts := c.tx.Bucket(bucketCounts)
	if counts == nil {
		return nil, nil
	}
	var victims []store.EmailKey
	if maxPerInbox > 0 {
		err := counts.ForEach(func(hash, v []byte) error {
			n, _ := inboxCounts(v)
			mb := mailbox(c.tx, string(hash))
			if n <= int64(maxPerInbox) || mb == nil {
				return nil
			}
			cur := mb.Cursor()
			k, _ := cur.First()
			for i := int64(maxPerInbox); i < n && k != nil; i++ {
				victims = append(victims, store.EmailKey{InboxHash: string(hash), ID: string(k)})
				k, _ = cur.Next()
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if err := deleteEmails(c, victims); err != nil {
			return nil, err
		}
	}
	if maxBytes <= 0 {
		return victims, nil
	}
	oldest, err := oldestBeyond(c.tx, maxBytes)
	if err == nil {
		err = deleteEmails(c, oldest)
	}
	return append(victims, oldest...), err
}

func deleteEmails(c *changes, keys []store.EmailKey) error {
	for _, k := range keys {
		if err := c.deleteEmail([]byte(k.InboxHash), []byte(k.ID)); err != nil {
			return err
		}
	}
	return nil
}

// oldestBeyond returns the oldest emails of all (by ID) whose sizes add up
// to what the store holds beyond maxBytes.
func oldestBeyond(tx *bbolt.Tx, maxBytes int64) ([]store.EmailKey, error) {
	counts := tx.Bucket(bucketCounts)
	var total int64
	var walks []store.InboxWalk
	err := counts.ForEach(func(hash, v []byte) error {
		_, size := inboxCounts(v)
		total += size
		if mb := mailbox(tx, string(hash)); mb != nil && size > 0 {
			c := &cursor{hash: string(hash), cur: mb.Cursor()}
			c.id, c.value = c.cur.First()
			if c.id != nil {
				walks = append(walks, c)
			}
		}
		return nil
	})
	if err != nil || total <= maxBytes {
		return nil, err
	}
	return store.OldestBeyond(walks, total-maxBytes)
}

// cursor walks an inbox's mailbox (a store.InboxWalk).
type cursor struct {
	hash      string
	cur       *bbolt.Cursor
	id, value []byte
}

func (c *cursor) Key() store.EmailKey { return store.EmailKey{InboxHash: c.hash, ID: string(c.id)} }

func (c *cursor) Size() (int64, error) {
	size, err := payloadSize(c.value)
	if err != nil {
		return 0, fmt.Errorf("email %s: %w", c.id, err)
	}
	return size, nil
}

func (c *cursor) Next() bool {
	c.id, c.value = c.cur.Next()
	return c.id != nil
}

// Unsigned implements store.Cluster.
func (cl cluster) Unsigned(ctx context.Context, olderThan time.Duration, limit int) ([]store.EmailKey, error) {
	b := cl.b
	cutoff := time.Now().Add(-olderThan).UnixNano()
	var found []store.UnsignedEmail
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		unsigned := tx.Bucket(bucketUnsigned)
		if unsigned == nil {
			return nil
		}
		return unsigned.ForEach(func(k, v []byte) error {
			hash, id, ok := splitUnsignedKey(k)
			if !ok || len(v) != 8 {
				return fmt.Errorf("unsigned entry %q: bad encoding", k)
			}
			if at := int64(binary.BigEndian.Uint64(v)); at < cutoff {
				found = append(found, store.UnsignedEmail{Key: store.EmailKey{InboxHash: hash, ID: id}, StoredAt: time.Unix(0, at)})
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list unsigned emails: %w", err)
	}
	return store.OldestUnsigned(found, limit), nil
}

// LastEmailID implements store.Store: the last key of each mailbox.
func (b *Store) LastEmailID(ctx context.Context) (string, error) {
	last := ""
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		emails := tx.Bucket(bucketEmails)
		if emails == nil {
			return nil
		}
		return emails.ForEachBucket(func(hash []byte) error {
			if k, _ := emails.Bucket(hash).Cursor().Last(); k != nil && string(k) > last {
				last = string(k)
			}
			return nil
		})
	})
	return last, err
}
