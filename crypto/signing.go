package crypto

import (
	"crypto/rand"
	"fmt"
	"sync"

	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
)

// Signature sizes in bytes.
const (
	// SigPublicKeySize is the size of an ML-DSA-65 public key (server_sig_pk).
	SigPublicKeySize = mldsa65.PublicKeySize
	// SignatureSize is the size of an ML-DSA-65 signature (sig).
	SignatureSize = mldsa65.SignatureSize
	// SigningKeySeedSize is the size of the seed MarshalBinary writes.
	SigningKeySeedSize = mldsa65.SeedSize
)

// SigningKey is the server's ML-DSA-65 signing key. Create one with
// GenerateSigningKey or SigningKeyFromBytes; the zero value is not usable.
// It is safe for concurrent use.
type SigningKey struct {
	seed   [SigningKeySeedSize]byte
	sk     *mldsa65.PrivateKey
	pub    []byte // packed public key
	pubB64 string // EncodeBase64URL(pub), the server_sig_pk of every payload
	// wires are buffers for the transcripts being signed (*[]byte): a
	// transcript is the whole payload again, garbage once it is signed.
	wires sync.Pool
}

// scratch is a buffer of at least n bytes from k.wires; put it back there.
func (k *SigningKey) scratch(n int) *[]byte {
	buf, _ := k.wires.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	return buf
}

// GenerateSigningKey returns a fresh ML-DSA-65 signing key drawn from
// crypto/rand.
func GenerateSigningKey() (*SigningKey, error) {
	var seed [SigningKeySeedSize]byte
	defer clear(seed[:])
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("crypto: generate signing key: %w", err)
	}
	return newSigningKey(&seed), nil
}

// SigningKeyFromBytes loads a key written by MarshalBinary: the 32-byte
// ML-DSA-65 seed (FIPS 204 ξ), from which the whole key pair is derived.
func SigningKeyFromBytes(b []byte) (*SigningKey, error) {
	if len(b) != SigningKeySeedSize {
		return nil, fmt.Errorf("crypto: signing key seed is %d bytes, want %d", len(b), SigningKeySeedSize)
	}
	var seed [SigningKeySeedSize]byte
	defer clear(seed[:])
	copy(seed[:], b)
	return newSigningKey(&seed), nil
}

func newSigningKey(seed *[SigningKeySeedSize]byte) *SigningKey {
	defer cleanVectorState()
	pk, sk := mldsa65.NewKeyFromSeed(seed)
	pub := pk.Bytes()
	return &SigningKey{seed: *seed, sk: sk, pub: pub, pubB64: EncodeBase64URL(pub)}
}

// MarshalBinary returns the key's 32-byte seed, which SigningKeyFromBytes
// turns back into the same key. The seed is secret.
func (k *SigningKey) MarshalBinary() ([]byte, error) {
	out := make([]byte, SigningKeySeedSize)
	copy(out, k.seed[:])
	return out, nil
}

// PublicKey returns a copy of the packed ML-DSA-65 public key
// (SigPublicKeySize bytes), the key clients pin.
func (k *SigningKey) PublicKey() []byte {
	out := make([]byte, len(k.pub))
	copy(out, k.pub)
	return out
}
