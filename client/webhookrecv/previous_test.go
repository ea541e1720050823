package webhookrecv

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"sandview/crypto"
)

// TestVerifyPreviousSignature: during a rotation's grace a delivery
// carries X-<Word>-Signature (new secret) and X-<Word>-Signature-Previous
// (previous secret); a receiver holding either secret verifies it.
func TestVerifyPreviousSignature(t *testing.T) {
	body := []byte(`{"id":"evt_1"}`)
	now := time.Unix(1_800_000_000, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	h := http.Header{}
	h.Set("X-Service-Signature", crypto.SignWebhook("whsec_new", ts, body))
	h.Set("X-Service-Signature-Previous", crypto.SignWebhook("whsec_old", ts, body))
	h.Set("X-Service-Timestamp", ts)
	for _, secrets := range [][]string{{"whsec_new"}, {"whsec_old"}, {"whsec_new", "whsec_old"}} {
		if status, _, _, _ := Verify(h, body, secrets, DefaultTolerance, now); status != SignatureValid {
			t.Errorf("secrets %v: %v, want valid", secrets, status)
		}
	}
	if status, _, _, _ := Verify(h, body, []string{"whsec_other"}, DefaultTolerance, now); status != SignatureInvalid {
		t.Errorf("other secret: %v, want invalid", status)
	}
	h.Del("X-Service-Signature")
	if status, _, _, _ := Verify(h, body, []string{"whsec_old"}, DefaultTolerance, now); status != SignatureValid {
		t.Errorf("previous header alone: %v, want valid", status)
	}
}
