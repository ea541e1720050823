package crypto

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
)

// Key and ciphertext sizes in bytes.
const (
	// KEMPublicKeySize is the size of an ML-KEM-768 public (encapsulation) key.
	KEMPublicKeySize = mlkem768.PublicKeySize
	// KEMSecretKeySize is the size of an ML-KEM-768 secret (decapsulation) key.
	KEMSecretKeySize = mlkem768.PrivateKeySize
	// KEMCiphertextSize is the size of an ML-KEM-768 ciphertext (ct_kem).
	KEMCiphertextSize = mlkem768.CiphertextSize
)

// publicKeyOffset is where the public key starts inside an ML-KEM-768 secret
// key (FIPS 203: dk = dk_PKE ‖ ek ‖ H(ek) ‖ z).
const publicKeyOffset = 1152

// KeyPair is an inbox's ML-KEM-768 key pair in its standard encodings:
// PublicKey is KEMPublicKeySize bytes, SecretKey is KEMSecretKeySize bytes.
type KeyPair struct {
	PublicKey []byte
	SecretKey []byte
}

// GenerateKeyPair returns a fresh ML-KEM-768 key pair drawn from crypto/rand.
func GenerateKeyPair() (KeyPair, error) {
	defer cleanVectorState()
	pk, sk, err := mlkem768.GenerateKeyPair(rand.Reader)
	if err != nil {
		return KeyPair{}, fmt.Errorf("crypto: generate ML-KEM-768 key pair: %w", err)
	}
	kp := KeyPair{
		PublicKey: make([]byte, KEMPublicKeySize),
		SecretKey: make([]byte, KEMSecretKeySize),
	}
	pk.Pack(kp.PublicKey)
	sk.Pack(kp.SecretKey)
	return kp, nil
}

// PublicKeyFromSecret returns a copy of the public key embedded in an
// ML-KEM-768 secret key (bytes 1152 up to 2336).
func PublicKeyFromSecret(secretKey []byte) ([]byte, error) {
	if len(secretKey) != KEMSecretKeySize {
		return nil, fmt.Errorf("crypto: secret key is %d bytes, want %d", len(secretKey), KEMSecretKeySize)
	}
	pk := make([]byte, KEMPublicKeySize)
	copy(pk, secretKey[publicKeyOffset:publicKeyOffset+KEMPublicKeySize])
	return pk, nil
}

// InboxHash returns the hash that names an encrypted inbox:
// base64url(SHA-256(publicKey)).
func InboxHash(publicKey []byte) string {
	sum := sha256.Sum256(publicKey)
	return EncodeBase64URL(sum[:])
}

// PlainInboxHash returns the hash that names a plain inbox:
// base64url(SHA-256("plain:" + lowercased address)).
func PlainInboxHash(address string) string {
	sum := sha256.Sum256([]byte("plain:" + strings.ToLower(address)))
	return EncodeBase64URL(sum[:])
}

// parseKEMSecretKey unpacks an ML-KEM-768 secret key, checking its size and
// its embedded hash of the public key.
func parseKEMSecretKey(secretKey []byte) (*mlkem768.PrivateKey, error) {
	if len(secretKey) != KEMSecretKeySize {
		return nil, fmt.Errorf("crypto: secret key is %d bytes, want %d", len(secretKey), KEMSecretKeySize)
	}
	defer cleanVectorState()
	var sk mlkem768.PrivateKey
	if err := sk.Unpack(secretKey); err != nil {
		return nil, fmt.Errorf("crypto: invalid ML-KEM-768 secret key: %w", err)
	}
	return &sk, nil
}

// parseKEMPublicKey unpacks an ML-KEM-768 public key, checking its size and
// that its coefficients are reduced.
func parseKEMPublicKey(publicKey []byte) (*mlkem768.PublicKey, error) {
	if len(publicKey) != KEMPublicKeySize {
		return nil, fmt.Errorf("crypto: public key is %d bytes, want %d", len(publicKey), KEMPublicKeySize)
	}
	defer cleanVectorState()
	var pk mlkem768.PublicKey
	if err := pk.Unpack(publicKey); err != nil {
		return nil, fmt.Errorf("crypto: invalid ML-KEM-768 public key: %w", err)
	}
	return &pk, nil
}
