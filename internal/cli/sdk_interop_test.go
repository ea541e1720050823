package cli

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/crypto"
	"sandview/model"
)

// recordedSDKExport was written by the official Go SDK (see the README of
// client/testdata/reference-deployment).
const recordedSDKExport = "../../client/testdata/reference-deployment/encrypted-inbox-export.json"

// sdkExport is an exported inbox as the Go SDK's importer reads it.
type sdkExport struct {
	Version      int       `json:"version"`
	EmailAddress string    `json:"emailAddress"`
	ExpiresAt    time.Time `json:"expiresAt"`
	InboxHash    string    `json:"inboxHash"`
	ServerSigPk  string    `json:"serverSigPk"`
	SecretKey    string    `json:"secretKey"`
	ExportedAt   time.Time `json:"exportedAt"`
	EmailAuth    bool      `json:"emailAuth"`
	Encrypted    bool      `json:"encrypted"`
}

// validate applies the Go SDK importer's checks: version 1, one @, an
// inbox hash, and for an encrypted inbox (`encrypted` true, or it is taken
// for a plain one) a 2400-byte secret key and a 1952-byte server key, and
// an expiry.
func (e sdkExport) validate(t *testing.T) {
	t.Helper()
	secret, errSecret := crypto.DecodeBase64URL(e.SecretKey)
	server, errServer := crypto.DecodeBase64URL(e.ServerSigPk)
	switch {
	case e.Version != 1, strings.Count(e.EmailAddress, "@") != 1, e.InboxHash == "", e.ExpiresAt.IsZero():
		t.Fatalf("export %+v fails the SDK importer's first checks", e)
	case !e.Encrypted:
		t.Fatal("export lacks encrypted: true; the SDK would import it as a plain inbox, without its key")
	case errSecret != nil || len(secret) != sdkSecretKeySize:
		t.Fatalf("secretKey: %d bytes (%v), want %d", len(secret), errSecret, sdkSecretKeySize)
	case errServer != nil || len(server) != sdkServerKeySize:
		t.Fatalf("serverSigPk: %d bytes (%v), want %d", len(server), errServer, sdkServerKeySize)
	}
}

// TestSDKExportsBothWays: an inbox exported by the official Go SDK imports
// into sandview's keystore, and one exported by `sandview inbox export`
// carries what the SDK's importer requires, with a key that opens the
// inbox's mail.
func TestSDKExportsBothWays(t *testing.T) {
	h := sdkServer(t)
	recorded, err := os.ReadFile(recordedSDKExport)
	if err != nil {
		t.Fatal(err)
	}
	decodeAs[sdkExport](t, "the recorded export", recorded).validate(t)
	if d, err := client.ValidateExport(recorded); err != nil || d.EmailAddress != "2546bf79@sandbox.test" || !d.Encrypted {
		t.Fatalf("sandview's importer refuses the SDK's export: %+v, %v", d, err)
	}
	// The recorded inbox lives on the deployment it was recorded from:
	// `sandview inbox import` takes the file and, seeing that this server's
	// signing key is not the one the inbox pins, refuses to load it here.
	if r := h.run("inbox", "import", recordedSDKExport); r.code != exitFailure || !strings.Contains(r.stderr, "server") || !strings.Contains(r.stderr, "key") {
		t.Fatalf("importing another server's inbox: exit %d, %q; want a refusal naming the server key", r.code, r.stderr)
	}

	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	file := filepath.Join(t.TempDir(), "inbox.json")
	h.must("inbox", "export", address, file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	export := decodeAs[sdkExport](t, "sandview's export", data)
	export.validate(t)
	if err := smtpsend.Send(context.Background(), h.srv.SMTPAddr(), "a@example.org", []string{address}, []byte("Subject: for the SDK\r\n\r\nhi\r\n")); err != nil {
		t.Fatal(err)
	}
	secret, _ := crypto.DecodeBase64URL(export.SecretKey)
	public, err := crypto.PublicKeyFromSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	in := sdkInbox{EmailAddress: export.EmailAddress, InboxHash: export.InboxHash, ServerSigPk: export.ServerSigPk,
		keys: crypto.KeyPair{PublicKey: public, SecretKey: secret}}
	var list []sdkRecord
	h.expectJSON(http.StatusOK, "GET", "/api/inboxes/"+address+"/emails?includeContent=true", nil, &list)
	if len(list) != 1 || decodeAs[sdkMetadata](t, "metadata", in.open(t, list[0].EncryptedMetadata)).Subject != "for the SDK" {
		t.Fatalf("the exported key does not open the inbox's mail: %+v", list)
	}
}

// TestSDKWebhookDelivery: deliveries carry X-Vault-Event, -Delivery,
// -Timestamp and -Signature (sha256= hex HMAC-SHA256 of "<timestamp>.<body>"
// keyed with the whole secret, whsec_ included, as the SDKs' verifiers
// compute it) and the VaultSandbox-Webhook/1.0 user agent.
func TestSDKWebhookDelivery(t *testing.T) {
	h := sdkServer(t)
	type delivery struct {
		header http.Header
		body   []byte
	}
	got := make(chan delivery, 8)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	receiver := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- delivery{r.Header.Clone(), body}
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = receiver.Serve(l) }()
	t.Cleanup(func() { receiver.Close() })

	var hook model.Webhook
	h.expectJSON(http.StatusCreated, "POST", "/api/webhooks", map[string]any{"url": "http://" + l.Addr().String() + "/hook", "events": []string{"email.received"}}, &hook)
	in := h.createSDKInbox(nil)
	var created struct{ EmailID string }
	h.expectJSON(http.StatusCreated, "POST", "/api/test/emails", map[string]any{"to": in.EmailAddress, "subject": "hooked"}, &created)
	select {
	case d := <-got:
		mac := hmac.New(sha256.New, []byte(hook.Secret))
		mac.Write([]byte(d.header.Get("X-Vault-Timestamp") + "." + string(d.body)))
		if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); d.header.Get("X-Vault-Signature") != want {
			t.Fatalf("X-Vault-Signature %q, want %q", d.header.Get("X-Vault-Signature"), want)
		}
		if d.header.Get("X-Vault-Event") != "email.received" || d.header.Get("X-Vault-Delivery") == "" || d.header.Get("User-Agent") != "VaultSandbox-Webhook/1.0" {
			t.Fatalf("headers %v", d.header)
		}
		var payload struct {
			Type string `json:"type"`
			Data struct {
				ID      string `json:"id"`
				Subject string `json:"subject"`
			} `json:"data"`
		}
		if err := json.Unmarshal(d.body, &payload); err != nil || payload.Data.ID != created.EmailID || payload.Data.Subject != "hooked" {
			t.Fatalf("payload %s (%v): want data.id %s without msg_", d.body, err, created.EmailID)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no delivery within 20 s")
	}
}
