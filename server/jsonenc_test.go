package server

import (
	"encoding/json"
	"testing"

	"sandview/crypto"
)

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r", "\x00\x01\x1f", "Grüße ✓ 😀",
		"bad \xff utf8", "line sep \u2028 para \u2029", "<html>&amp;</html>"} {
		var want, got string
		wantJSON, _ := json.Marshal(s)
		if err := json.Unmarshal(wantJSON, &want); err != nil {
			t.Fatal(err)
		}
		encoded := appendJSONString(nil, s)
		if err := json.Unmarshal(encoded, &got); err != nil {
			t.Fatalf("%q encodes to invalid JSON %s: %v", s, encoded, err)
		}
		if got != want {
			t.Fatalf("%q round-trips to %q, encoding/json gives %q", s, got, want)
		}
	}
}

func TestPayloadJSONRoundTrips(t *testing.T) {
	keys, key := testKeys(t)
	sealed, err := crypto.Seal(keys.PublicKey, []byte("hello"), []byte("service:raw"), key, "")
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := crypto.ParsePayload(payloadJSON(sealed))
	if err != nil {
		t.Fatalf("parse hand-written payload JSON: %v", err)
	}
	if *parsed != *sealed {
		t.Fatalf("payload changed: %+v", parsed)
	}
	plain, err := crypto.Open(parsed, keys.SecretKey, key.PublicKey(), "")
	if err != nil || string(plain) != "hello" {
		t.Fatalf("open: %q %v", plain, err)
	}
}

func TestStoredPayloadReadsBack(t *testing.T) {
	keys, key := testKeys(t)
	sealed, err := crypto.Seal(keys.PublicKey, []byte("hello"), []byte("service:raw"), key, "")
	if err != nil {
		t.Fatal(err)
	}
	written := payloadJSON(sealed)
	got, err := storedPayload(written)
	if err != nil || *got != *sealed {
		t.Fatalf("read back %+v, %v", got, err)
	}
	// The same payload in another JSON layout goes the general way.
	reordered, err := json.MarshalIndent(map[string]any{
		"server_sig_pk": sealed.ServerSigPk, "sig": sealed.Sig, "ciphertext": sealed.Ciphertext, "aad": sealed.AAD,
		"nonce": sealed.Nonce, "ct_kem": sealed.CtKem, "algs": sealed.Algs, "v": sealed.V,
	}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := storedPayload(reordered); err != nil || *got != *sealed {
		t.Fatalf("reordered JSON read back %+v, %v", got, err)
	}
	for name, bad := range map[string][]byte{
		"truncated":      written[:len(written)/2],
		"trailing bytes": append(append([]byte(nil), written...), " x"...),
		"not JSON":       []byte("junk"),
		"empty":          nil,
	} {
		if _, err := storedPayload(bad); err == nil {
			t.Errorf("%s: read back without an error", name)
		}
	}
}

// testKeys makes an inbox key pair and a server signing key.
func testKeys(t testing.TB) (crypto.KeyPair, *crypto.SigningKey) {
	t.Helper()
	keys, err := crypto.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	return keys, key
}
