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
	"sandview/server/store/storetest"
)

// TestWebhookRecords runs the webhook records' suite against a bbolt
// store.
func TestWebhookRecords(t *testing.T) {
	storetest.RunWebhookRecords(t, func(t *testing.T) store.WebhookRecords {
		db, err := bolt.Open(filepath.Join(t.TempDir(), "test.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		return db
	})
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
		return errors.Join(hooks.Put([]byte("wh1"), []byte(`{"id":"wh1"}`)), retries.Put([]byte("wh1/d1"), []byte(`{"deliveryId":"d1"}`)))
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
		hooks, retries, err := db.LoadWebhookRecords(context.Background())
		if err != nil || len(hooks) != 1 || string(hooks[0].Data) != `{"id":"wh1"}` || len(retries) != 1 || retries[0].Key != "wh1/d1" {
			t.Fatalf("open %d: webhooks %s, retries %s, %v", round, hooks, retries, err)
		}
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
