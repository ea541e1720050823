package crypto

import (
	"bytes"
	"testing"
)

func TestSigningKeyRoundTrip(t *testing.T) {
	k, err := GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != SigningKeySeedSize {
		t.Fatalf("MarshalBinary length = %d, want %d", len(b), SigningKeySeedSize)
	}
	k2, err := SigningKeyFromBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(k.PublicKey()) != SigPublicKeySize {
		t.Fatalf("PublicKey length = %d, want %d", len(k.PublicKey()), SigPublicKeySize)
	}
	if !bytes.Equal(k.PublicKey(), k2.PublicKey()) {
		t.Error("reloaded key has a different public key")
	}

	// A payload sealed with the reloaded key opens under the original's key.
	kp, err := GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Seal(kp.PublicKey, []byte("x"), nil, k2, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(p, kp.SecretKey, k.PublicKey(), ""); err != nil {
		t.Errorf("open with original key: %v", err)
	}
}

func TestSigningKeysDiffer(t *testing.T) {
	a, err := GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	b, err := GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.PublicKey(), b.PublicKey()) {
		t.Error("two generated signing keys are equal")
	}
}

func TestSigningKeyCopies(t *testing.T) {
	k, err := GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	pk, seed := k.PublicKey(), mustMarshal(t, k)
	pk[0] ^= 1
	seed[0] ^= 1
	if bytes.Equal(k.PublicKey(), pk) || bytes.Equal(mustMarshal(t, k), seed) {
		t.Error("PublicKey or MarshalBinary result aliases the key")
	}
}

func TestSigningKeyFromBytesRejectsSize(t *testing.T) {
	for _, n := range []int{0, 31, 33, 4032} {
		if _, err := SigningKeyFromBytes(make([]byte, n)); err == nil {
			t.Errorf("SigningKeyFromBytes(%d bytes) succeeded", n)
		}
	}
}

func mustMarshal(t *testing.T, k *SigningKey) []byte {
	t.Helper()
	b, err := k.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
