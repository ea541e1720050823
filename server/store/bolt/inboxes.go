package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"sandview/server/store"

	bbolt "go.etcd.io/bbolt"
)

// Inbox implements store.Store.
func (b *Store) Inbox(ctx context.Context, hash string) (store.Inbox, error) {
	var found store.Inbox
	err := inboxLookup{b}.viewInboxes(ctx, func(inboxes *bbolt.Bucket) error {
		v := inboxes.Get([]byte(hash))
		if v == nil {
			return store.ErrNotFound
		}
		return decodeInbox(hash, v, &found)
	})
	return found, err
}

// InboxByAddress implements store.Store: a walk over the inboxes that
// decodes only those whose encoding holds the address (the core asks only
// for addresses its registry does not hold).
func (b *Store) InboxByAddress(ctx context.Context, address string) (store.Inbox, error) {
	needle, err := json.Marshal(address)
	if err != nil {
		return store.Inbox{}, fmt.Errorf("encode address: %w", err)
	}
	var found store.Inbox
	err = inboxLookup{b}.viewInboxes(ctx, func(inboxes *bbolt.Bucket) error {
		c := inboxes.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if !bytes.Contains(v, needle) {
				continue
			}
			var in store.Inbox
			if err := decodeInbox(string(k), v, &in); err != nil {
				return err
			}
			if in.Address == address {
				found = in
				return nil
			}
		}
		return store.ErrNotFound
	})
	return found, err
}

// inboxLookup is the store's reads of single inboxes: whether one is
// held (memory.Webhooks.Exists) and the walks of Inbox and
// InboxByAddress.
type inboxLookup struct{ b *Store }

// holds reports whether the store holds the inbox hash.
func (l inboxLookup) holds(ctx context.Context, hash string) (bool, error) {
	b := l.b
	found := false
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		inboxes := tx.Bucket(bucketInboxes)
		found = inboxes != nil && inboxes.Get([]byte(hash)) != nil
		return nil
	})
	return found, err
}

// viewInboxes runs fn on the inboxes' bucket as the store holds it (see
// Store.view: without waiting for a checkpoint, so a lookup during a burst
// of mail costs a group commit at most); a store without it holds no
// inbox (ErrNotFound).
func (l inboxLookup) viewInboxes(ctx context.Context, fn func(*bbolt.Bucket) error) error {
	return l.b.view(ctx, func(tx *bbolt.Tx) error {
		inboxes := tx.Bucket(bucketInboxes)
		if inboxes == nil {
			return store.ErrNotFound
		}
		return fn(inboxes)
	})
}

func decodeInbox(hash string, v []byte, in *store.Inbox) error {
	if err := json.Unmarshal(v, in); err != nil {
		return fmt.Errorf("decode inbox %s: %w", hash, err)
	}
	return nil
}
