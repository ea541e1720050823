package crypto

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"math"
	"strings"
)

// aesKeySize is the AES-256 key size.
const aesKeySize = 32

// The payload key is derived from the KEM shared secret:
//
//	key = HKDF-SHA-512(IKM = sharedSecret, salt = SHA-256(ctKem),
//	                   info = context ‖ uint32be(len(aad)) ‖ aad, L = 32)
//
// The extract step depends only on the encapsulation, so payloads sharing
// one (see Envelope) extract once and expand once each.

// extractKey is HKDF's extract step: the pseudorandom key of one
// encapsulation.
func extractKey(sharedSecret, ctKem []byte) ([]byte, error) {
	salt := sha256.Sum256(ctKem)
	return extractKeySalted(sharedSecret, &salt)
}

// extractKeySalted is extractKey with the salt, SHA-256(ctKem), given.
func extractKeySalted(sharedSecret []byte, salt *[sha256.Size]byte) ([]byte, error) {
	return hkdf.Extract(sha512.New, sharedSecret, salt[:])
}

// newAEADFromPRK expands prk for one payload's context and aad and returns
// the AES-256-GCM cipher keyed with the result. The derived key is zeroed
// before returning.
func newAEADFromPRK(prk []byte, context string, aad []byte) (cipher.AEAD, error) {
	if uint64(len(aad)) > math.MaxUint32 {
		return nil, errors.New("crypto: aad longer than 4 GiB")
	}
	var aadLen [4]byte
	binary.BigEndian.PutUint32(aadLen[:], uint32(len(aad)))
	var info strings.Builder
	info.Grow(len(context) + len(aadLen) + len(aad))
	info.WriteString(context)
	info.Write(aadLen[:])
	info.Write(aad)

	key, err := hkdf.Expand(sha512.New, prk, info.String(), aesKeySize)
	if err != nil {
		return nil, err
	}
	defer clear(key)
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
