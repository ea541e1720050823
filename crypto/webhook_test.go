package crypto

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestWebhookSignVerify(t *testing.T) {
	const (
		secret = "whsec_current"
		old    = "whsec_previous"
		ts     = "1795267555"
	)
	body := []byte(`{"type":"email.received"}`)
	sig := SignWebhook(secret, ts, body)
	tests := []struct {
		name    string
		header  string
		ts      string
		body    []byte
		secrets []string
		want    bool
	}{
		{"valid", sig, ts, body, []string{secret}, true},
		{"upper-case hex", "sha256=" + strings.ToUpper(strings.TrimPrefix(sig, "sha256=")), ts, body, []string{secret}, true},
		{"current among several", sig, ts, body, []string{old, secret}, true},
		{"previous secret during rotation", SignWebhook(old, ts, body), ts, body, []string{secret, old}, true},
		{"wrong secret", sig, ts, body, []string{old}, false},
		{"secret without prefix", sig, ts, body, []string{"current"}, false},
		{"no secrets", sig, ts, body, nil, false},
		{"empty secret never matches", SignWebhook("", ts, body), ts, body, []string{""}, false},
		{"tampered body", sig, ts, []byte(`{"type":"email.deleted"}`), []string{secret}, false},
		{"other timestamp", sig, "1795267556", body, []string{secret}, false},
		{"missing prefix", strings.TrimPrefix(sig, "sha256="), ts, body, []string{secret}, false},
		{"other algorithm", "sha512=" + strings.TrimPrefix(sig, "sha256="), ts, body, []string{secret}, false},
		{"truncated", sig[:len(sig)-2], ts, body, []string{secret}, false},
		{"not hex", sig[:len(sig)-1] + "g", ts, body, []string{secret}, false},
		{"empty header", "", ts, body, []string{secret}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := VerifyWebhookSignature(tt.header, tt.ts, tt.body, tt.secrets...); got != tt.want {
				t.Errorf("VerifyWebhookSignature = %v, want %v", got, tt.want)
			}
		})
	}
	if !strings.HasPrefix(sig, "sha256=") || len(sig) != len("sha256=")+64 {
		t.Errorf("SignWebhook = %q, want sha256=<64 hex>", sig)
	}
}

func TestWebhookFixtureDeliveries(t *testing.T) {
	var hook struct {
		Secret string `json:"secret"`
	}
	decodeFixture(t, "webhook-create.json", &hook)
	if !strings.HasPrefix(hook.Secret, "whsec_") {
		t.Fatalf("fixture secret %q lacks the whsec_ prefix", hook.Secret)
	}

	sc := bufio.NewScanner(bytes.NewReader(readFixture(t, "webhook-deliveries.jsonl")))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var d struct {
			Headers [][2]string `json:"headers"`
			Body    string      `json:"body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("delivery %d: %v", n, err)
		}
		var sig, ts string
		for _, h := range d.Headers {
			switch strings.ToLower(h[0]) {
			case "x-vault-signature":
				sig = h[1]
			case "x-vault-timestamp":
				ts = h[1]
			}
		}
		if sig == "" || ts == "" {
			t.Fatalf("delivery %d lacks signature or timestamp headers", n)
		}
		body := []byte(d.Body)
		if got := SignWebhook(hook.Secret, ts, body); got != sig {
			t.Errorf("delivery %d: SignWebhook = %q, header %q", n, got, sig)
		}
		if !VerifyWebhookSignature(sig, ts, body, "whsec_other", hook.Secret) {
			t.Errorf("delivery %d: signature does not verify", n)
		}
		if VerifyWebhookSignature(sig, ts, body, strings.TrimPrefix(hook.Secret, "whsec_")) {
			t.Errorf("delivery %d: verifies with the secret minus its prefix", n)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("checked %d deliveries, want 3", n)
	}
}
