package bolt

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
)

// Buckets of the webhook engine's records (store.WebhookRecords):
// webhooks/<id> and retries/<webhook id>/<delivery id>, as the engine's
// own file (legacyWebhooksFile) laid them out before the store kept them.
var (
	bucketHooks   = []byte("webhooks")
	bucketRetries = []byte("retries")
)

var _ store.WebhookRecords = (*Store)(nil)

// LoadWebhookRecords implements store.WebhookRecords.
func (b *Store) LoadWebhookRecords(ctx context.Context) (hooks, retries []store.Record, err error) {
	if err := b.settle(ctx); err != nil {
		return nil, nil, err
	}
	err = b.db.View(func(tx *bbolt.Tx) error {
		hooks, retries = readRecords(tx, bucketHooks), readRecords(tx, bucketRetries)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("load webhook records: %w", err)
	}
	return hooks, retries, nil
}

// readRecords copies a bucket's records out of tx (none if it is not made
// yet).
func readRecords(tx *bbolt.Tx, name []byte) []store.Record {
	bucket := tx.Bucket(name)
	if bucket == nil {
		return nil
	}
	var out []store.Record
	_ = bucket.ForEach(func(k, v []byte) error {
		out = append(out, store.Record{Key: string(k), Data: append([]byte(nil), v...)})
		return nil
	})
	return out
}

// PutWebhookRecords implements store.WebhookRecords.
func (b *Store) PutWebhookRecords(ctx context.Context, recs []store.Record) error {
	if len(recs) == 0 {
		return nil
	}
	return b.write(ctx, nil, func(c *changes) error {
		for _, r := range recs {
			if err := c.put(bucketHooks, []byte(r.Key), r.Data); err != nil {
				return fmt.Errorf("save webhook %s: %w", r.Key, err)
			}
		}
		return nil
	})
}

// DeleteWebhookRecord implements store.WebhookRecords.
func (b *Store) DeleteWebhookRecord(ctx context.Context, id string) error {
	return b.write(ctx, nil, func(c *changes) error {
		if err := c.delete(bucketHooks, []byte(id)); err != nil {
			return fmt.Errorf("delete webhook %s: %w", id, err)
		}
		return c.deleteFrom(bucketRetries, []byte(store.RetryKey(id, "")))
	})
}

// PutRetryRecord implements store.WebhookRecords.
func (b *Store) PutRetryRecord(ctx context.Context, webhookID, deliveryID string, data []byte) error {
	return b.write(ctx, nil, func(c *changes) error {
		return c.put(bucketRetries, []byte(store.RetryKey(webhookID, deliveryID)), data)
	})
}

// DeleteRetryRecord implements store.WebhookRecords.
func (b *Store) DeleteRetryRecord(ctx context.Context, webhookID, deliveryID string) error {
	return b.write(ctx, nil, func(c *changes) error {
		return c.delete(bucketRetries, []byte(store.RetryKey(webhookID, deliveryID)))
	})
}

// legacyWebhooksFile is the webhook engine's own file, beside the store's,
// of the releases before the store kept the webhooks; MigratedSuffix is
// added to its name once its records are in the store.
const (
	legacyWebhooksFile = "webhooks.db"
	MigratedSuffix     = ".migrated"
)

// migrateLegacyWebhooks moves the records of a legacy webhooks file beside
// the store into it, in one durable write, then renames the file (a crash
// before the rename moves the same records again on the next start).
func (b *Store) migrateLegacyWebhooks(dir string) error {
	path := filepath.Join(dir, legacyWebhooksFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	legacy, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: 2 * time.Second, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("migrate the webhooks of %s: %w (move it aside to start without them)", path, err)
	}
	var hooks, retries []store.Record
	_ = legacy.View(func(tx *bbolt.Tx) error {
		hooks, retries = readRecords(tx, bucketHooks), readRecords(tx, bucketRetries)
		return nil
	})
	if err := legacy.Close(); err != nil {
		return fmt.Errorf("migrate the webhooks of %s: %w", path, err)
	}
	err = b.write(context.Background(), nil, func(c *changes) error {
		for _, r := range hooks {
			if err := c.put(bucketHooks, []byte(r.Key), r.Data); err != nil {
				return err
			}
		}
		for _, r := range retries {
			if err := c.put(bucketRetries, []byte(r.Key), r.Data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrate the webhooks of %s: %w", path, err)
	}
	if err := os.Rename(path, path+MigratedSuffix); err != nil {
		return fmt.Errorf("migrate the webhooks of %s: %w", path, err)
	}
	b.log.Info("store: webhooks moved into the store", "from", path, "webhooks", len(hooks), "retries", len(retries))
	return nil
}
