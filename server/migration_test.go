package server_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server"
	"sandview/server/core"
	"sandview/server/emailauth"
	"sandview/server/servertest"
)

// fixtureDir is a --data directory written by the release before the
// store kept the webhooks (commit 67e0d56): one plain inbox
// old@sandbox.test living 50 years with one email, a global webhook and
// one of the inbox, the webhooks in their own webhooks.db.
const fixtureDir = "testdata/datadir-67e0d56"

// copyDir copies the files of src into a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestDataDirectoryOfThePreviousReleaseIsMigrated starts the server on a
// data directory of the previous release: the inbox, its email, the
// signing key and both webhooks are found, the webhooks file is moved
// into the store (and renamed), and a second start finds it all again
// from the store alone.
func TestDataDirectoryOfThePreviousReleaseIsMigrated(t *testing.T) {
	dir := copyDir(t, fixtureDir)
	seed, err := os.ReadFile(filepath.Join(dir, "server-signing.key"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.SigningKeyFromBytes(seed)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		srv, err := server.Start(context.Background(), server.Config{
			HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", DataDir: dir,
			Options: core.Options{APIKey: "fixture-key", Resolver: &emailauth.StaticResolver{}, MaxTTL: 60 * 365 * 24 * time.Hour},
		})
		if err != nil {
			t.Fatalf("start %d: %v", round, err)
		}
		a := servertest.NewClient(t, srv)
		if srv.ServerSigPk() != crypto.EncodeBase64URL(key.PublicKey()) {
			t.Errorf("start %d: the signing key is not the data directory's", round)
		}
		emails := a.Emails("old@sandbox.test", true)
		if len(emails) != 1 || !emails[0].HasContent() {
			t.Fatalf("start %d: emails %+v", round, emails)
		}
		if metadata, err := base64.StdEncoding.DecodeString(emails[0].Metadata); err != nil || !strings.Contains(string(metadata), "kept across the upgrade") {
			t.Fatalf("start %d: metadata %q, %v", round, metadata, err)
		}
		var global, scoped model.WebhookList
		a.Expect(http.StatusOK, http.MethodGet, "/api/webhooks", nil, &global)
		a.Expect(http.StatusOK, http.MethodGet, "/api/inboxes/old@sandbox.test/webhooks", nil, &scoped)
		if len(global.Webhooks) != 1 || global.Webhooks[0].Description != "global fixture" || global.Webhooks[0].URL != "https://hooks.example.com/global" {
			t.Errorf("start %d: global webhooks %+v", round, global.Webhooks)
		}
		if len(scoped.Webhooks) != 1 || scoped.Webhooks[0].URL != "https://hooks.example.com/inbox" {
			t.Errorf("start %d: inbox webhooks %+v", round, scoped.Webhooks)
		}
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "webhooks.db")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("start %d: webhooks.db is still there (%v)", round, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "webhooks.db.migrated")); err != nil {
			t.Fatalf("start %d: the migrated file is not kept aside: %v", round, err)
		}
	}
}

// fixtureStoreDir is a --data directory written by the release before
// every store kept a delivery queue (commit c2aaea9): one plain inbox
// prev@sandbox.test living 50 years with one email, a global webhook whose
// first attempt failed (its retry waiting, as a record of the engine's in
// the store's file) and a webhook of the inbox.
const fixtureStoreDir = "testdata/datadir-c2aaea9"

// TestWebhookRecordsOfThePreviousReleaseAreMigrated starts the server on
// a data directory of the previous release: both webhooks are found with
// the failed attempt, the waiting retry is queued and made (again failed:
// the fixture's receiver is gone), and a second start finds it all again.
func TestWebhookRecordsOfThePreviousReleaseAreMigrated(t *testing.T) {
	dir := copyDir(t, fixtureStoreDir)
	const globalID = "whk_055c3424201d1b4136def70e5ac27f14"
	for round := range 2 {
		started := time.Now().UTC()
		srv, err := server.Start(context.Background(), server.Config{
			HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", DataDir: dir,
			Options: core.Options{APIKey: "fixture-key", Resolver: &emailauth.StaticResolver{}, MaxTTL: 60 * 365 * 24 * time.Hour},
		})
		if err != nil {
			t.Fatalf("start %d: %v", round, err)
		}
		a := servertest.NewClient(t, srv)
		if emails := a.Emails("prev@sandbox.test", false); len(emails) != 1 {
			t.Fatalf("start %d: emails %+v", round, emails)
		}
		var scoped model.WebhookList
		a.Expect(http.StatusOK, http.MethodGet, "/api/inboxes/prev@sandbox.test/webhooks", nil, &scoped)
		if len(scoped.Webhooks) != 1 || scoped.Webhooks[0].URL != "http://127.0.0.1:9/inbox" {
			t.Errorf("start %d: inbox webhooks %+v", round, scoped.Webhooks)
		}
		var global model.Webhook
		if round == 0 {
			waitFor(t, "the retry waiting in the previous release", func() bool {
				a.Expect(http.StatusOK, http.MethodGet, "/api/webhooks/"+globalID, nil, &global)
				return global.LastDeliveryAt != nil && !global.LastDeliveryAt.Before(started.Truncate(time.Millisecond))
			})
		}
		a.Expect(http.StatusOK, http.MethodGet, "/api/webhooks/"+globalID, nil, &global)
		if global.Description != "global fixture c2aaea9" || global.LastDeliveryStatus != "failed" || !global.Enabled {
			t.Errorf("start %d: global webhook %+v", round, global)
		}
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
