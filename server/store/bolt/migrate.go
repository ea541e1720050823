package bolt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
)

// The webhooks of earlier releases, as the webhook engine kept them
// itself: webhooks/<id> and retries/<webhook id>/<delivery id>, each its
// own JSON record, first in a file of its own (legacyWebhooksFile), then
// in buckets of the store's file. Open moves both into the store's
// webhooks and delivery queue (webhooks.go).
var (
	bucketLegacyHooks   = []byte("webhooks")
	bucketLegacyRetries = []byte("retries")
)

// legacyWebhooksFile is the webhook engine's own file, beside the store's,
// of the releases before the store kept the webhooks; MigratedSuffix is
// added to its name once its records are in the store.
const (
	legacyWebhooksFile = "webhooks.db"
	MigratedSuffix     = ".migrated"
)

// legacyRecords is what an earlier release kept of its webhooks.
type legacyRecords struct{ hooks, retries map[string][]byte }

// readLegacy reads the legacy buckets of tx.
func readLegacy(tx *bbolt.Tx) legacyRecords {
	l := legacyRecords{hooks: map[string][]byte{}, retries: map[string][]byte{}}
	read := func(name []byte, into map[string][]byte) {
		_ = forEach(tx, name, func(k, v []byte) error {
			into[string(k)] = append([]byte(nil), v...)
			return nil
		})
	}
	read(bucketLegacyHooks, l.hooks)
	read(bucketLegacyRetries, l.retries)
	return l
}

// migrateLegacyWebhooks moves the records of a legacy webhooks file beside
// the store into it, in one durable write, then renames the file (a crash
// before the rename moves the same records again on the next start).
func (w webhookFile) migrateLegacyWebhooks(dir string) error {
	b := w.b
	path := filepath.Join(dir, legacyWebhooksFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	legacy, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: 2 * time.Second, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("migrate the webhooks of %s: %w (move it aside to start without them)", path, err)
	}
	var recs legacyRecords
	_ = legacy.View(func(tx *bbolt.Tx) error {
		recs = readLegacy(tx)
		return nil
	})
	if err := legacy.Close(); err != nil {
		return fmt.Errorf("migrate the webhooks of %s: %w", path, err)
	}
	if err := w.writeMigrated(recs); err != nil {
		return fmt.Errorf("migrate the webhooks of %s: %w (move it aside to start without them)", path, err)
	}
	if err := os.Rename(path, path+MigratedSuffix); err != nil {
		return fmt.Errorf("migrate the webhooks of %s: %w", path, err)
	}
	b.log.Info("store: webhooks moved into the store", "from", path, "webhooks", len(recs.hooks), "retries", len(recs.retries))
	return nil
}

// migrateWebhookRecords moves the legacy buckets of the store's own file
// into the webhooks and delivery queue, and empties them.
func (w webhookFile) migrateWebhookRecords() error {
	b := w.b
	if err := b.settle(context.Background()); err != nil {
		return err
	}
	var recs legacyRecords
	err := b.db.View(func(tx *bbolt.Tx) error {
		recs = readLegacy(tx)
		return nil
	})
	if err != nil || len(recs.hooks)+len(recs.retries) == 0 {
		return err
	}
	if err := w.writeMigrated(recs); err != nil {
		return fmt.Errorf("migrate the webhooks kept by an earlier release: %w", err)
	}
	b.log.Info("store: webhooks of an earlier release moved into the delivery queue", "webhooks", len(recs.hooks), "retries", len(recs.retries))
	return nil
}

// writeMigrated writes legacy records as webhooks and queued deliveries
// and empties the legacy buckets, in one durable write.
func (w webhookFile) writeMigrated(recs legacyRecords) error {
	b := w.b
	rows := make([]store.WebhookRow, 0, len(recs.hooks))
	for id, data := range recs.hooks {
		r, err := legacyRow(data)
		if err != nil {
			return fmt.Errorf("webhook %s: %w", id, err)
		}
		rows = append(rows, r)
	}
	ds := make([]store.QueuedDelivery, 0, len(recs.retries))
	for key, data := range recs.retries {
		d, err := legacyRetry(data)
		if err != nil {
			return fmt.Errorf("retry %s: %w", key, err)
		}
		if d.WebhookID == "" {
			d.WebhookID, _, _ = strings.Cut(key, "/")
		}
		ds = append(ds, d)
	}
	return b.write(context.Background(), nil, func(c *changes) error {
		for _, r := range rows {
			data, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if err := c.put(bucketWebhookRows, []byte(r.ID), data); err != nil {
				return err
			}
		}
		if err := putDeliveries(c, ds); err != nil {
			return err
		}
		return errors.Join(c.deleteFrom(bucketLegacyHooks, nil), c.deleteFrom(bucketLegacyRetries, nil))
	})
}

// legacyRow is a webhook as the store keeps it, from the engine's record
// of an earlier release: the record stays the engine's, the fields the
// store keeps itself are read from it.
func legacyRow(data []byte) (store.WebhookRow, error) {
	var rec struct {
		ID        string `json:"id"`
		InboxHash string `json:"inboxHash"`
		Enabled   bool   `json:"enabled"`
		Seq       uint64 `json:"seq"`
		Stats     struct {
			Total      int64 `json:"totalDeliveries"`
			Successful int64 `json:"successfulDeliveries"`
			Failed     int64 `json:"failedDeliveries"`
		} `json:"stats"`
		ConsecutiveFailures int        `json:"consecutiveFailures"`
		LastDeliveryAt      *time.Time `json:"lastDeliveryAt"`
		LastDeliveryStatus  string     `json:"lastDeliveryStatus"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return store.WebhookRow{}, err
	}
	row := store.WebhookRow{ID: rec.ID, InboxHash: rec.InboxHash, Seq: rec.Seq, Record: data, Enabled: rec.Enabled,
		Stats: store.WebhookStats{Total: rec.Stats.Total, Successful: rec.Stats.Successful, Failed: rec.Stats.Failed,
			ConsecutiveFailures: rec.ConsecutiveFailures, LastDeliveryOK: rec.LastDeliveryStatus == "success"}}
	if rec.LastDeliveryAt != nil {
		row.Stats.LastDeliveryAt = rec.LastDeliveryAt.UTC()
	}
	return row, nil
}

// legacyRetry is a queued delivery, from a retry record of an earlier
// release (the engine's pending delivery, which it queues as it is).
func legacyRetry(data []byte) (store.QueuedDelivery, error) {
	var p struct {
		WebhookID  string    `json:"webhookId"`
		DeliveryID string    `json:"deliveryId"`
		Attempt    int       `json:"attempt"`
		Due        time.Time `json:"due"`
		Seq        uint64    `json:"seq"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return store.QueuedDelivery{}, err
	}
	return store.QueuedDelivery{ID: p.DeliveryID, WebhookID: p.WebhookID, Seq: p.Seq, Attempt: p.Attempt, Due: p.Due, Pending: data}, nil
}
