package bolt

import (
	"context"
	"encoding/json"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
	"sandview/server/store/memory"
)

// Buckets of the webhooks (store.Webhooks): hooks/<id> = JSON
// store.WebhookRow, deliveries/<id> = JSON store.QueuedDelivery. The
// store's memory.Webhooks serves them; its journal writes every change
// here, so that webhooks, stats and queued deliveries survive a restart
// (claims do not: they lapse with the process).
var (
	bucketWebhookRows = []byte("hooks")
	bucketDeliveries  = []byte("deliveries")
)

// webhookFile is the store's persistence of its webhooks and delivery
// queue: the journal of memory.Webhooks, their load at Open and the
// migration of an earlier release's records (migrate.go).
type webhookFile struct{ b *Store }

// journal writes a change of the webhooks (memory.Webhooks.Journal).
func (w webhookFile) journal(ctx context.Context, ch memory.WebhookChange) func() error {
	b := w.b
	return b.submit(ctx, nil, func(c *changes) error {
		for _, r := range ch.Saved {
			data, err := json.Marshal(r)
			if err != nil {
				return fmt.Errorf("encode webhook %s: %w", r.ID, err)
			}
			if err := c.put(bucketWebhookRows, []byte(r.ID), data); err != nil {
				return fmt.Errorf("save webhook %s: %w", r.ID, err)
			}
		}
		for _, id := range ch.Deleted {
			if err := c.delete(bucketWebhookRows, []byte(id)); err != nil {
				return fmt.Errorf("delete webhook %s: %w", id, err)
			}
		}
		for _, id := range ch.Dropped {
			if err := c.delete(bucketDeliveries, []byte(id)); err != nil {
				return fmt.Errorf("delete webhook delivery %s: %w", id, err)
			}
		}
		return putDeliveries(c, ch.Queued)
	})
}

// putDeliveries writes queued deliveries.
func putDeliveries(c *changes, ds []store.QueuedDelivery) error {
	for _, d := range ds {
		data, err := json.Marshal(d)
		if err != nil {
			return fmt.Errorf("encode webhook delivery %s: %w", d.ID, err)
		}
		if err := c.put(bucketDeliveries, []byte(d.ID), data); err != nil {
			return fmt.Errorf("queue webhook delivery %s: %w", d.ID, err)
		}
	}
	return nil
}

// loadWebhooks fills the store's memory.Webhooks from the file, leaving
// out the webhooks of inboxes gone (an inbox and its webhooks are deleted
// in two writes) and the deliveries of webhooks gone.
func (w webhookFile) loadWebhooks(ctx context.Context) error {
	b := w.b
	if err := b.settle(ctx); err != nil {
		return err
	}
	var rows []store.WebhookRow
	var ds []store.QueuedDelivery
	err := b.db.View(func(tx *bbolt.Tx) error {
		inboxes := tx.Bucket(bucketInboxes)
		err := forEach(tx, bucketWebhookRows, func(k, v []byte) error {
			var r store.WebhookRow
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("webhook %s: %w", k, err)
			}
			if r.InboxHash == "" || (inboxes != nil && inboxes.Get([]byte(r.InboxHash)) != nil) {
				rows = append(rows, r)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return forEach(tx, bucketDeliveries, func(k, v []byte) error {
			var d store.QueuedDelivery
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("webhook delivery %s: %w", k, err)
			}
			ds = append(ds, d)
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("load webhooks: %w", err)
	}
	b.Restore(rows, ds)
	return nil
}

// forEach calls fn for every key of a top-level bucket (none if it is not
// made yet).
func forEach(tx *bbolt.Tx, name []byte, fn func(k, v []byte) error) error {
	bucket := tx.Bucket(name)
	if bucket == nil {
		return nil
	}
	return bucket.ForEach(fn)
}
