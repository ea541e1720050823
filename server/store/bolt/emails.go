package bolt

import (
	"context"
	"encoding/json"
	"fmt"
	"sandview/server/store"

	bbolt "go.etcd.io/bbolt"
)

// Ping implements store.Store: the store answers while its committer
// runs (it stops at Close, or on a failed write to the log).
func (b *Store) Ping(context.Context) error {
	select {
	case <-b.done:
		return store.ErrClosed
	default:
		return nil
	}
}

// PutInbox implements Store.
func (b *Store) PutInbox(ctx context.Context, inbox store.Inbox) error {
	data, err := json.Marshal(inbox)
	if err != nil {
		return fmt.Errorf("encode inbox: %w", err)
	}
	return b.write(ctx, nil, func(c *changes) error {
		return c.putInbox([]byte(inbox.Hash), data)
	})
}

// DeleteInbox implements Store.
func (b *Store) DeleteInbox(ctx context.Context, hash string) error {
	err := b.write(ctx, nil, func(c *changes) error {
		return c.deleteInbox([]byte(hash))
	})
	if err != nil {
		return err
	}
	b.Chaos.ForgetInbox(hash)
	return b.Webhooks.ForgetInbox(ctx, hash)
}

// Inboxes implements Store.
func (b *Store) Inboxes(ctx context.Context) ([]store.Inbox, error) {
	if err := b.settle(ctx); err != nil {
		return nil, err
	}
	var out []store.Inbox
	err := b.db.View(func(tx *bbolt.Tx) error {
		inboxes := tx.Bucket(bucketInboxes)
		if inboxes == nil {
			return nil // a new store: the first write makes the bucket
		}
		return inboxes.ForEach(func(k, v []byte) error {
			var in store.Inbox
			if err := json.Unmarshal(v, &in); err != nil {
				return fmt.Errorf("decode inbox %s: %w", k, err)
			}
			out = append(out, in)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list inboxes: %w", err)
	}
	return out, nil
}

// mailbox is an inbox's bucket of emails, or nil.
func mailbox(tx *bbolt.Tx, hash string) *bbolt.Bucket {
	emails := tx.Bucket(bucketEmails)
	if emails == nil {
		return nil
	}
	return emails.Bucket([]byte(hash))
}

// Commit implements Store: the emails and their deliveries in one write.
func (b *Store) Commit(ctx context.Context, batch store.Batch) error {
	encoded := make([][]byte, len(batch.Put))
	for i, e := range batch.Put {
		encoded[i] = encodeEmail(e)
	}
	check := func(tx *bbolt.Tx) error {
		for _, e := range batch.Put {
			if mailbox(tx, e.InboxHash) == nil {
				return fmt.Errorf("put email %s: inbox %s: %w", e.ID, e.InboxHash, store.ErrNotFound)
			}
		}
		return nil
	}
	apply := func(c *changes) error {
		for _, k := range batch.Delete {
			if mailbox(c.tx, k.InboxHash) != nil {
				if err := c.deleteEmail([]byte(k.InboxHash), []byte(k.ID)); err != nil {
					return err
				}
			}
		}
		for i, e := range batch.Put {
			if err := c.putEmail([]byte(e.InboxHash), []byte(e.ID), encoded[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if len(batch.Deliveries) == 0 && !batch.CheckWebhooks {
		return b.write(ctx, check, apply)
	}
	return b.Queue(batch.CheckWebhooks, batch.WebhookVersion, batch.Deliveries, func(ds []store.QueuedDelivery) func() error {
		return b.submit(ctx, check, func(c *changes) error {
			if err := apply(c); err != nil {
				return err
			}
			return putDeliveries(c, ds)
		})
	})
}

// DeleteEmail implements Store.
func (b *Store) DeleteEmail(ctx context.Context, k store.EmailKey) error {
	check := func(tx *bbolt.Tx) error {
		mb := mailbox(tx, k.InboxHash)
		if mb == nil || mb.Get([]byte(k.ID)) == nil {
			return fmt.Errorf("delete email %s: %w", k.ID, store.ErrNotFound)
		}
		return nil
	}
	return b.write(ctx, check, func(c *changes) error {
		return c.deleteEmail([]byte(k.InboxHash), []byte(k.ID))
	})
}

// MarkRead implements Store.
func (b *Store) MarkRead(ctx context.Context, k store.EmailKey) error {
	check := func(tx *bbolt.Tx) error {
		mb := mailbox(tx, k.InboxHash)
		if mb == nil || mb.Get([]byte(k.ID)) == nil {
			return fmt.Errorf("mark email %s read: %w", k.ID, store.ErrNotFound)
		}
		return nil
	}
	return b.write(ctx, check, func(c *changes) error {
		v := mailbox(c.tx, k.InboxHash).Get([]byte(k.ID))
		if len(v) < headerSize || v[1]&flagRead != 0 {
			return nil
		}
		if sigs := signaturesOf(c.tx, []byte(k.InboxHash)); sigs != nil && sigs.Get([]byte(k.ID)) != nil {
			// Put whole, its signatures in it.
			e, err := readEmail(c.tx, k, v, true)
			if err != nil {
				return err
			}
			e.IsRead = true
			return c.putEmail([]byte(k.InboxHash), []byte(k.ID), encodeEmail(e))
		}
		updated := make([]byte, len(v))
		copy(updated, v)
		updated[1] |= flagRead
		return c.putEmail([]byte(k.InboxHash), []byte(k.ID), updated)
	})
}

// SetSigned implements Store: an email stored unsigned keeps its value;
// what signing changed in it is written apart (signatures.go), so that
// signing writes the signatures and not the whole email again.
func (b *Store) SetSigned(ctx context.Context, signed []store.Signed) error {
	return b.write(ctx, nil, func(c *changes) error {
		for _, s := range signed {
			mb := mailbox(c.tx, s.Key.InboxHash)
			if mb == nil {
				continue
			}
			v := mb.Get([]byte(s.Key.ID))
			if v == nil {
				continue
			}
			if err := c.sign(s, v); err != nil {
				return fmt.Errorf("sign email %s: %w", s.Key.ID, err)
			}
		}
		return nil
	})
}

// sign records the change s to the stored email v: its signature entry,
// or the email whole when it was put signed or the entry would not be
// much smaller.
func (c *changes) sign(s store.Signed, v []byte) error {
	base, err := decodeEmail(s.Key, v, true)
	if err != nil {
		return err
	}
	e, err := readEmail(c.tx, s.Key, v, true)
	if err != nil {
		return err
	}
	s.Apply(e)
	hash, id := []byte(s.Key.InboxHash), []byte(s.Key.ID)
	if base.Unsigned != 0 { // else readEmail would not look at an entry
		if entry, ok := signatureEntry(base, e, base.Unsigned&^e.Unsigned); ok {
			return c.putSignatures(hash, id, entry)
		}
	}
	return c.putEmail(hash, id, encodeEmail(e))
}

// store.Email implements Store.
func (b *Store) Email(ctx context.Context, k store.EmailKey) (*store.Email, error) {
	var out *store.Email
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		mb := mailbox(tx, k.InboxHash)
		if mb == nil {
			return fmt.Errorf("inbox %s: %w", k.InboxHash, store.ErrNotFound)
		}
		v := mb.Get([]byte(k.ID))
		if v == nil {
			return fmt.Errorf("email %s: %w", k.ID, store.ErrNotFound)
		}
		var err error
		out, err = readEmail(tx, k, v, true)
		return err
	})
	return out, err
}

// Emails implements Store.
func (b *Store) Emails(ctx context.Context, hash string, withContent bool, page store.Page) ([]*store.Email, error) {
	if err := b.settle(ctx); err != nil {
		return nil, err
	}
	var out []*store.Email
	err := b.db.View(func(tx *bbolt.Tx) error {
		mb := mailbox(tx, hash)
		if mb == nil {
			return fmt.Errorf("inbox %s: %w", hash, store.ErrNotFound)
		}
		c := mb.Cursor()
		// The page starts just before the first key at or after Before, or
		// at the last key when there is none.
		var k, v []byte
		if page.Before != "" {
			k, _ = c.Seek([]byte(page.Before))
		}
		if k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		for ; k != nil && (page.Limit <= 0 || len(out) < page.Limit); k, v = c.Prev() {
			e, err := readEmail(tx, store.EmailKey{InboxHash: hash, ID: string(k)}, v, withContent)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// IDs implements Store.
func (b *Store) IDs(ctx context.Context, hash string) ([]string, error) {
	if err := b.settle(ctx); err != nil {
		return nil, err
	}
	var out []string
	err := b.db.View(func(tx *bbolt.Tx) error {
		mb := mailbox(tx, hash)
		if mb == nil {
			return fmt.Errorf("inbox %s: %w", hash, store.ErrNotFound)
		}
		c := mb.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			out = append(out, string(k))
		}
		return nil
	})
	return out, err
}
