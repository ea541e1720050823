package crypto

import (
	"bytes"
	"testing"
)

func TestConstants(t *testing.T) {
	tests := []struct {
		name      string
		got, want int
	}{
		{"KEMPublicKeySize", KEMPublicKeySize, 1184},
		{"KEMSecretKeySize", KEMSecretKeySize, 2400},
		{"KEMCiphertextSize", KEMCiphertextSize, 1088},
		{"SigPublicKeySize", SigPublicKeySize, 1952},
		{"SignatureSize", SignatureSize, 3309},
		{"SigningKeySeedSize", SigningKeySeedSize, 32},
		{"NonceSize", NonceSize, 12},
		{"TagSize", TagSize, 16},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	if want := (Algs{KEM: "ML-KEM-768", Sig: "ML-DSA-65", AEAD: "AES-256-GCM", KDF: "HKDF-SHA-512"}); DefaultAlgs() != want {
		t.Errorf("DefaultAlgs() = %+v, want %+v", DefaultAlgs(), want)
	}
}

func TestGenerateKeyPair(t *testing.T) {
	a, err := GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	b, err := GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	for _, kp := range []KeyPair{a, b} {
		if len(kp.PublicKey) != 1184 || len(kp.SecretKey) != 2400 {
			t.Fatalf("key sizes = %d/%d, want 1184/2400", len(kp.PublicKey), len(kp.SecretKey))
		}
		pk, err := PublicKeyFromSecret(kp.SecretKey)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(pk, kp.PublicKey) {
			t.Error("PublicKeyFromSecret does not match the generated public key")
		}
		pk[0] ^= 1
		if kp.SecretKey[publicKeyOffset] == pk[0] {
			t.Error("PublicKeyFromSecret result aliases the secret key")
		}
	}
	if bytes.Equal(a.PublicKey, b.PublicKey) || bytes.Equal(a.SecretKey, b.SecretKey) {
		t.Error("two generated key pairs are equal")
	}
}

func TestPublicKeyFromSecretRejectsSize(t *testing.T) {
	for _, n := range []int{0, 2399, 2401} {
		if _, err := PublicKeyFromSecret(make([]byte, n)); err == nil {
			t.Errorf("PublicKeyFromSecret(%d bytes) succeeded", n)
		}
	}
}

func TestInboxHashFixture(t *testing.T) {
	inbox := loadFixtureInbox(t)
	pk, err := PublicKeyFromSecret(inbox.SecretKey)
	if err != nil {
		t.Fatal(err)
	}
	if got := InboxHash(pk); got != inbox.InboxHash {
		t.Errorf("InboxHash = %q, want %q", got, inbox.InboxHash)
	}
}

func TestPlainInboxHash(t *testing.T) {
	var created struct {
		EmailAddress string `json:"emailAddress"`
		InboxHash    string `json:"inboxHash"`
	}
	decodeFixture(t, "plain-inbox-create.json", &created)
	tests := []struct {
		name    string
		address string
		want    string
	}{
		{"fixture", created.EmailAddress, created.InboxHash},
		{"upper case folds", "957D0B34@Sandbox.TEST", created.InboxHash},
		// base64url(SHA-256("plain:a@b")), computed with openssl.
		{"known vector", "A@B", "EpRl6MDyLrPB-6_77gS3ry1fT3aDc1Lb5jWP1TMKcSE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlainInboxHash(tt.address); got != tt.want {
				t.Errorf("PlainInboxHash(%q) = %q, want %q", tt.address, got, tt.want)
			}
		})
	}
}
