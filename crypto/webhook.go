package crypto

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// webhookSigPrefix starts every webhook signature header value.
const webhookSigPrefix = "sha256="

// SignWebhook returns the X-Vault-Signature value of a webhook delivery:
// "sha256=" + hex(HMAC-SHA256(secret, timestamp + "." + body)). The key is
// the whole secret string, "whsec_" prefix included.
func SignWebhook(secret, timestamp string, body []byte) string {
	mac := webhookMAC(secret, timestamp, body)
	return webhookSigPrefix + hex.EncodeToString(mac)
}

// VerifyWebhookSignature reports whether header ("sha256=<hex>", hex in
// either case) is the signature of timestamp and body under any of secrets,
// such as the current and the previous secret during a rotation. Every
// non-empty secret is compared in constant time; empty secrets never match.
// Checking the timestamp's age is up to the caller.
func VerifyWebhookSignature(header, timestamp string, body []byte, secrets ...string) bool {
	hexSig, ok := strings.CutPrefix(header, webhookSigPrefix)
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	matched := false
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		// No early exit: the time taken does not depend on which secret matched.
		if hmac.Equal(got, webhookMAC(secret, timestamp, body)) {
			matched = true
		}
	}
	return matched
}

func webhookMAC(secret, timestamp string, body []byte) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(timestamp))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}
