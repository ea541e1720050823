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

// newAEAD derives the payload key from the KEM shared secret and returns the
// AES-256-GCM cipher keyed with it:
//
//	key = HKDF-SHA-512(IKM = sharedSecret, salt = SHA-256(ctKem),
//	                   info = context ‖ uint32be(len(aad)) ‖ aad, L = 32)
//
// The derived key is zeroed before returning.
func newAEAD(sharedSecret, ctKem []byte, context string, aad []byte) (cipher.AEAD, error) {
	if uint64(len(aad)) > math.MaxUint32 {
		return nil, errors.New("crypto: aad longer than 4 GiB")
	}
	salt := sha256.Sum256(ctKem)

	var aadLen [4]byte
	binary.BigEndian.PutUint32(aadLen[:], uint32(len(aad)))
	var info strings.Builder
	info.Grow(len(context) + len(aadLen) + len(aad))
	info.WriteString(context)
	info.Write(aadLen[:])
	info.Write(aad)

	key, err := hkdf.Key(sha512.New, sharedSecret, salt[:], info.String(), aesKeySize)
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
