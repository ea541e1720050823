package bolt_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"sandview/server/store"
	"sandview/server/store/bolt"
)

// Webhook records as an earlier release's engine wrote them: a webhook
// with stats and one retry waiting.
const (
	legacyHook  = `{"id":"wh1","url":"http://127.0.0.1:1/x","enabled":true,"seq":3,"stats":{"totalDeliveries":5,"successfulDeliveries":4,"failedDeliveries":1},"consecutiveFailures":1,"lastDeliveryAt":"2026-01-02T03:04:05Z","lastDeliveryStatus":"failed"}`
	legacyRetry = `{"webhookId":"wh1","eventId":"evt_1","deliveryId":"d1","eventType":"email.received","attempt":2,"due":"2026-01-01T00:00:00Z","seq":4}`
)

// writeLegacyBuckets writes the webhooks/<id> and retries/<webhook
// id>/<delivery id> buckets of an earlier release into the bbolt file at
// path.
func writeLegacyBuckets(t *testing.T, path string) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		hooks, err := tx.CreateBucket([]byte("webhooks"))
		if err != nil {
			return err
		}
		retries, err := tx.CreateBucket([]byte("retries"))
		if err != nil {
			return err
		}
		return errors.Join(hooks.Put([]byte("wh1"), []byte(legacyHook)), retries.Put([]byte("wh1/d1"), []byte(legacyRetry)))
	})
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
}

// checkMigrated checks that the legacy records are the store's webhook
// (record, sequence number and stats) and queued delivery.
func checkMigrated(t *testing.T, db *bolt.Store) {
	t.Helper()
	ctx := context.Background()
	rows, _, err := db.LoadWebhooks(ctx)
	if err != nil || len(rows) != 1 {
		t.Fatalf("webhooks %+v, %v; want wh1", rows, err)
	}
	want := store.WebhookStats{Total: 5, Successful: 4, Failed: 1, ConsecutiveFailures: 1, LastDeliveryAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if r := rows[0]; r.ID != "wh1" || r.Seq != 3 || !r.Enabled || string(r.Record) != legacyHook || r.Stats != want {
		t.Fatalf("webhook %+v, want the legacy record with stats %+v", r, want)
	}
	ds, _, err := db.ClaimDeliveries(ctx, 10, time.Minute)
	if err != nil || len(ds) != 1 {
		t.Fatalf("queued deliveries %+v, %v; want d1", ds, err)
	}
	if d := ds[0]; d.ID != "d1" || d.WebhookID != "wh1" || d.Attempt != 2 || d.Seq != 4 || string(d.Pending) != legacyRetry {
		t.Fatalf("delivery %+v", d)
	}
	if err := db.ReleaseDelivery(ctx, "d1"); err != nil {
		t.Fatal(err)
	}
}

// TestOpenMigratesTheLegacyWebhookBuckets: the webhook records an earlier
// release kept in the store's file become its webhooks and queued
// deliveries, and stay so after the store is opened again.
func TestOpenMigratesTheLegacyWebhookBuckets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandview.db")
	writeLegacyBuckets(t, path)
	for round := range 2 {
		db, err := bolt.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkMigrated(t, db)
		if err := db.Close(); err != nil {
			t.Fatalf("open %d: %v", round, err)
		}
	}
}

// TestWebhooksSurviveReopening: webhooks with their stats and queued
// deliveries are in the file (claims are not); a webhook of an inbox
// deleted is gone with it.
func TestWebhooksSurviveReopening(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sandview.db")
	db, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"h1", "h2"} {
		if err := db.PutInbox(ctx, store.Inbox{Address: h + "@sandbox.test", Hash: h}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SaveWebhook(ctx, store.WebhookRow{ID: "whk_" + h, InboxHash: h, Record: []byte(h), Enabled: true}); err != nil {
			t.Fatal(err)
		}
	}
	ds := []store.QueuedDelivery{{ID: "d1", WebhookID: "whk_h1", Attempt: 1}, {ID: "d2", WebhookID: "whk_h1", Attempt: 1}}
	if err := db.EnqueueDeliveries(ctx, ds); err != nil {
		t.Fatal(err)
	}
	claimed, _, err := db.ClaimDeliveries(ctx, 1, time.Hour)
	if err != nil || len(claimed) != 1 {
		t.Fatal(claimed, err)
	}
	if _, _, err := db.FinishAttempt(ctx, store.Attempt{Delivery: claimed[0], At: time.Now(), OK: true}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.ClaimDeliveries(ctx, 1, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteInbox(ctx, "h2"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, _, err := db.LoadWebhooks(ctx)
	if err != nil || len(rows) != 1 || rows[0].ID != "whk_h1" || rows[0].Stats.Successful != 1 {
		t.Fatalf("webhooks after reopening: %+v %v, want whk_h1 with one success", rows, err)
	}
	// The delivery claimed before the restart is free again.
	if got, _, err := db.ClaimDeliveries(ctx, 10, time.Hour); err != nil || len(got) != 1 || got[0].ID == claimed[0].ID {
		t.Fatalf("deliveries after reopening: %+v %v, want the one not finished", got, err)
	}
}

// writeLegacyWebhooks writes dir/webhooks.db as the webhook engine laid it
// out before the store kept its records: webhooks/<id> and
// retries/<webhook id>/<delivery id>.
func writeLegacyWebhooks(t *testing.T, dir string) {
	t.Helper()
	db, err := bbolt.Open(filepath.Join(dir, "webhooks.db"), 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		hooks, err := tx.CreateBucket([]byte("webhooks"))
		if err != nil {
			return err
		}
		retries, err := tx.CreateBucket([]byte("retries"))
		if err != nil {
			return err
		}
		return errors.Join(hooks.Put([]byte("wh1"), []byte(legacyHook)), retries.Put([]byte("wh1/d1"), []byte(legacyRetry)))
	})
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestOpenMigratesTheLegacyWebhooksFile: the records of a webhooks.db
// beside the store move into it when it opens, the file is renamed, and
// the records are still there after the store is opened again.
func TestOpenMigratesTheLegacyWebhooksFile(t *testing.T) {
	dir := t.TempDir()
	writeLegacyWebhooks(t, dir)
	path := filepath.Join(dir, "sandview.db")
	for round := range 2 {
		db, err := bolt.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkMigrated(t, db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "webhooks.db")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("open %d: webhooks.db still there: %v", round, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "webhooks.db"+bolt.MigratedSuffix)); err != nil {
			t.Fatalf("open %d: %v", round, err)
		}
		info, err := os.Stat(path)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("store file mode %v, %v; want 0600", info.Mode().Perm(), err)
		}
	}
}

// TestOpenRefusesAnUnreadableLegacyWebhooksFile: a webhooks.db that is
// not a bbolt file stops the start with an error naming it and what to
// do, and is left as it is.
func TestOpenRefusesAnUnreadableLegacyWebhooksFile(t *testing.T) {
	dir := t.TempDir()
	legacy := filepath.Join(dir, "webhooks.db")
	if err := os.WriteFile(legacy, []byte("not a bbolt file"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(filepath.Join(dir, "sandview.db"), nil)
	if err == nil {
		db.Close()
		t.Fatal("opened beside an unreadable webhooks.db")
	}
	if got := err.Error(); !strings.Contains(got, legacy) || !strings.Contains(got, "move it aside") {
		t.Errorf("error %q does not name the file and what to do", got)
	}
	if data, _ := os.ReadFile(legacy); string(data) != "not a bbolt file" {
		t.Error("the unreadable file was changed")
	}
}
