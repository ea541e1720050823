package cli

// SDK expectations: what the official client SDKs (vaultsandbox/client-go
// and client-node) depend on, checked against `sandview serve --compat
// reference` on loopback. The SDKs themselves cannot be fetched here, so
// each test decodes the wire the way they do and names the behaviour it
// protects.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/server"
	"sandview/server/servertest"
	"sandview/server/webhook"
)

// sdkContext is the encryption context the SDKs hard-code.
const sdkContext = "vaultsandbox:email:v1"

// Sizes the SDKs check before they decrypt.
const (
	sdkCtKemSize     = 1088 // ML-KEM-768 ciphertext
	sdkNonceSize     = 12   // AES-256-GCM nonce
	sdkSignatureSize = 3309 // ML-DSA-65 signature
	sdkServerKeySize = 1952 // ML-DSA-65 public key
	sdkSecretKeySize = 2400 // ML-KEM-768 secret key
)

// sdkServer is a reference-profile server with the test endpoint, loopback
// webhooks and a quick heartbeat, and a harness on it.
func sdkServer(t *testing.T) *cli {
	t.Helper()
	h := newCLI(t, func(cfg *server.Config) {
		cfg.Compat = server.CompatReference
		cfg.HTTP.HeartbeatInterval = 50 * time.Millisecond
		w := webhook.DefaultConfig()
		w.AllowLoopbackHTTP = true
		cfg.Webhooks = &w
	})
	return h
}

// call sends one request to the harness's server as an SDK does and
// returns the status and body.
func (c *cli) call(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(c.ctx, method, c.srv.URL()+path, reader)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("X-API-Key", servertest.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, data
}

// expectJSON calls and decodes the answer, failing on another status.
func (c *cli) expectJSON(status int, method, path string, body, out any) {
	c.t.Helper()
	got, data := c.call(method, path, body)
	if got != status {
		c.t.Fatalf("%s %s: status %d, want %d: %s", method, path, got, status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			c.t.Fatalf("%s %s: %s does not decode as an SDK reads it: %v", method, path, data, err)
		}
	}
}

// sdkInbox is an encrypted inbox as an SDK holds it.
type sdkInbox struct {
	EmailAddress string    `json:"emailAddress"`
	ExpiresAt    time.Time `json:"expiresAt"`
	InboxHash    string    `json:"inboxHash"`
	ServerSigPk  string    `json:"serverSigPk"`
	EmailAuth    bool      `json:"emailAuth"`
	Encrypted    bool      `json:"encrypted"`
	Persistent   bool      `json:"persistent"`
	keys         crypto.KeyPair
}

// createSDKInbox creates an inbox with the body the Go SDK sends.
func (c *cli) createSDKInbox(extra map[string]any) sdkInbox {
	c.t.Helper()
	keys, err := crypto.GenerateKeyPair()
	if err != nil {
		c.t.Fatal(err)
	}
	body := map[string]any{"clientKemPk": crypto.EncodeBase64URL(keys.PublicKey), "ttl": 3600}
	for k, v := range extra {
		body[k] = v
	}
	var in sdkInbox
	c.expectJSON(http.StatusCreated, "POST", "/api/inboxes", body, &in)
	in.keys = keys
	return in
}

// open checks a payload as the SDKs do before decrypting (version,
// algorithms, sizes, the pinned server key), then verifies and decrypts it
// with the hard-coded context.
func (in sdkInbox) open(t *testing.T, p *crypto.Payload) []byte {
	t.Helper()
	algs := crypto.Algs{KEM: "ML-KEM-768", Sig: "ML-DSA-65", AEAD: "AES-256-GCM", KDF: "HKDF-SHA-512"}
	if p == nil || p.V != 1 || p.Algs != algs {
		t.Fatalf("payload %+v: want version 1 and the SDKs' algorithm names", p)
	}
	for field, c := range map[string]struct {
		value string
		size  int
	}{"ct_kem": {p.CtKem, sdkCtKemSize}, "nonce": {p.Nonce, sdkNonceSize}, "sig": {p.Sig, sdkSignatureSize}, "server_sig_pk": {p.ServerSigPk, sdkServerKeySize}} {
		if b, err := crypto.DecodeBase64URL(c.value); err != nil || len(b) != c.size {
			t.Fatalf("payload %s: %d bytes (%v), the SDKs want %d", field, len(b), err, c.size)
		}
	}
	if p.ServerSigPk != in.ServerSigPk {
		t.Fatal("payload server_sig_pk differs from the key pinned at creation")
	}
	pinned, _ := crypto.DecodeBase64URL(in.ServerSigPk)
	plain, err := crypto.Open(p, in.keys.SecretKey, pinned, sdkContext)
	if err != nil {
		t.Fatalf("verify and decrypt with the hard-coded context %q: %v", sdkContext, err)
	}
	return plain
}

// sdkMetadata is decrypted metadata as the Go SDK decodes it (To string).
type sdkMetadata struct {
	From       string `json:"from"`
	To         string `json:"to"`
	Subject    string `json:"subject"`
	ReceivedAt string `json:"receivedAt"`
}

// sdkParsed is decrypted parsed content as the Go SDK decodes it.
type sdkParsed struct {
	Text        string         `json:"text"`
	HTML        string         `json:"html"`
	Headers     map[string]any `json:"headers"`
	Attachments []struct {
		Filename    string `json:"filename"`
		ContentType string `json:"contentType"`
		Size        int    `json:"size"`
		Content     []byte `json:"content"`
	} `json:"attachments"`
	Links       []string `json:"links"`
	AuthResults struct {
		SPF *struct {
			Result string `json:"result"`
		} `json:"spf"`
		DKIM []struct {
			Result string `json:"result"`
		} `json:"dkim"`
		DMARC *struct {
			Result string `json:"result"`
		} `json:"dmarc"`
		ReverseDNS *struct {
			Verified bool   `json:"verified"`
			IP       string `json:"ip"`
		} `json:"reverseDns"`
	} `json:"authResults"`
}

// sdkRecord is an email record as the Go SDK reads it.
type sdkRecord struct {
	ID                string          `json:"id"`
	InboxID           string          `json:"inboxId"`
	ReceivedAt        time.Time       `json:"receivedAt"`
	IsRead            bool            `json:"isRead"`
	EncryptedMetadata *crypto.Payload `json:"encryptedMetadata"`
	EncryptedParsed   *crypto.Payload `json:"encryptedParsed"`
}

// decode decodes JSON strictly into an SDK shape.
func decodeAs[T any](t *testing.T, what string, data []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s %s does not decode as the Go SDK decodes it: %v", what, data, err)
	}
	return v
}

// readEvents reads `data: ` lines of an event stream as the Go SDK does
// (skipping comments, empty lines and id: lines) and sends them on.
func readEvents(ctx context.Context, t *testing.T, body io.Reader) <-chan string {
	out := make(chan string, 16)
	go func() {
		defer close(out)
		lines := bufio.NewScanner(body)
		lines.Buffer(make([]byte, 64<<10), 1<<20)
		for lines.Scan() {
			if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				select {
				case out <- data:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}

// base64Text decodes the raw payload's plaintext as the SDKs do.
func base64Text(t *testing.T, b []byte) string {
	t.Helper()
	decoded, err := base64.StdEncoding.DecodeString(string(b))
	if err != nil {
		t.Fatalf("raw %.80q is not base64 text (the SDKs decode it): %v", b, err)
	}
	return string(decoded)
}
