package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Bucket layout of webhooks.db: webhooks/<id> = JSON record;
// retries/<webhook id>/<delivery id> = JSON pending.
var (
	bucketHooks   = []byte("webhooks")
	bucketRetries = []byte("retries")
)

// dbFileName is the engine's file inside Config.DataDir.
const dbFileName = "webhooks.db"

// pending is a delivery waiting for its next attempt.
type pending struct {
	WebhookID   string    `json:"webhookId"`
	EventID     string    `json:"eventId"`
	DeliveryID  string    `json:"deliveryId"`
	EventType   string    `json:"eventType"`
	Body        []byte    `json:"body"`
	ContentType string    `json:"contentType"`
	Attempt     int       `json:"attempt"` // number of the next attempt, from 1
	Due         time.Time `json:"due"`
	Seq         uint64    `json:"seq"` // creation order, from Engine.nextSeq
}

func retryKey(webhookID, deliveryID string) []byte {
	return []byte(webhookID + "/" + deliveryID)
}

// diskStore persists webhooks and pending retries. A nil *diskStore is the
// in-memory mode: every method does nothing.
type diskStore struct {
	db *bolt.DB
}

// openDiskStore opens (or creates) dir/webhooks.db, the directory 0700 and
// the file 0600: it holds signing secrets. Its buckets are made by the
// first write that needs each: a new store costs no transaction (and its
// fsyncs) at start.
func openDiskStore(dir string) (*diskStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create webhook data directory: %w", err)
	}
	path := filepath.Join(dir, dbFileName)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("open webhook store %s: %w", path, err)
	}
	return &diskStore{db: db}, nil
}

// forEach calls fn for each key of a bucket, none if it is not made yet.
func forEach(tx *bolt.Tx, name []byte, fn func(k, v []byte) error) error {
	if b := tx.Bucket(name); b != nil {
		return b.ForEach(fn)
	}
	return nil
}

// load reads every webhook and pending retry.
func (s *diskStore) load() ([]record, []pending, error) {
	if s == nil {
		return nil, nil, nil
	}
	var recs []record
	var retries []pending
	err := s.db.View(func(tx *bolt.Tx) error {
		if err := forEach(tx, bucketHooks, func(k, v []byte) error {
			var r record
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("webhook %s: %w", k, err)
			}
			recs = append(recs, r)
			return nil
		}); err != nil {
			return err
		}
		return forEach(tx, bucketRetries, func(k, v []byte) error {
			var p pending
			if err := json.Unmarshal(v, &p); err != nil {
				return fmt.Errorf("retry %s: %w", k, err)
			}
			retries = append(retries, p)
			return nil
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("load webhook store: %w", err)
	}
	return recs, retries, nil
}

// putHooks writes webhook records.
func (s *diskStore) putHooks(recs ...record) error {
	if s == nil || len(recs) == 0 {
		return nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketHooks)
		if err != nil {
			return err
		}
		for _, r := range recs {
			data, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(r.ID), data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save webhook: %w", err)
	}
	return nil
}

// deleteHook removes a webhook and its pending retries.
func (s *diskStore) deleteHook(id string) error {
	if s == nil {
		return nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		hooks, err := tx.CreateBucketIfNotExists(bucketHooks)
		if err != nil {
			return err
		}
		if err := hooks.Delete([]byte(id)); err != nil {
			return err
		}
		retries, err := tx.CreateBucketIfNotExists(bucketRetries)
		if err != nil {
			return err
		}
		c := retries.Cursor()
		prefix := []byte(id + "/")
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete webhook %s: %w", id, err)
	}
	return nil
}

// putRetry writes a pending retry.
func (s *diskStore) putRetry(p pending) error {
	if s == nil {
		return nil
	}
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode retry: %w", err)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		retries, err := tx.CreateBucketIfNotExists(bucketRetries)
		if err != nil {
			return err
		}
		return retries.Put(retryKey(p.WebhookID, p.DeliveryID), data)
	})
	if err != nil {
		return fmt.Errorf("save retry %s: %w", p.DeliveryID, err)
	}
	return nil
}

// deleteRetry forgets a pending retry.
func (s *diskStore) deleteRetry(webhookID, deliveryID string) error {
	if s == nil {
		return nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		retries, err := tx.CreateBucketIfNotExists(bucketRetries)
		if err != nil {
			return err
		}
		return retries.Delete(retryKey(webhookID, deliveryID))
	})
	if err != nil {
		return fmt.Errorf("delete retry %s: %w", deliveryID, err)
	}
	return nil
}

func (s *diskStore) close() error {
	if s == nil {
		return nil
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close webhook store: %w", err)
	}
	return nil
}
