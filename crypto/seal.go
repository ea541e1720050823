package crypto

import (
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
)

// Sealer encrypts payloads to one inbox and signs them with the server key.
// Create it with NewSealer; the zero value is not usable. It is safe for
// concurrent use.
type Sealer struct {
	recipient *mlkem768.PublicKey
	key       *SigningKey
	context   string
}

// NewSealer parses the inbox's ML-KEM-768 public key once. context is the
// deployment's context string; "" means DefaultContext.
func NewSealer(recipientPublicKey []byte, key *SigningKey, context string) (*Sealer, error) {
	recipient, err := parseKEMPublicKey(recipientPublicKey)
	if err != nil {
		return nil, err
	}
	if key == nil || key.sk == nil {
		return nil, errors.New("crypto: sealer needs a signing key from GenerateSigningKey or SigningKeyFromBytes")
	}
	if context == "" {
		context = DefaultContext
	}
	return &Sealer{recipient: recipient, key: key, context: context}, nil
}

// Seal encrypts plaintext with aad as additional authenticated data and
// signs the result (hedged ML-DSA-65, empty ML-DSA context): the mirror image
// of Opener.Open.
func (s *Sealer) Seal(plaintext, aad []byte) (*Payload, error) {
	algs := DefaultAlgs()
	w := newWire(nil, algs, s.context, len(aad), len(plaintext)+TagSize)

	var seed [mlkem768.EncapsulationSeedSize]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("crypto: seal: %w", err)
	}
	var ss [mlkem768.SharedKeySize]byte
	s.recipient.EncapsulateTo(w.ctKem, ss[:], seed[:])
	cleanVectorState()
	clear(seed[:])
	aead, err := newAEAD(ss[:], w.ctKem, s.context, aad)
	clear(ss[:])
	if err != nil {
		return nil, fmt.Errorf("crypto: seal: %w", err)
	}

	if _, err := rand.Read(w.nonce); err != nil {
		return nil, fmt.Errorf("crypto: seal: %w", err)
	}
	copy(w.aad, aad)
	aead.Seal(w.ciphertext[:0], w.nonce, plaintext, aad)
	copy(w.serverSigPk, s.key.pub)
	err = mldsa65.SignTo(s.key.sk, w.transcript, nil, true, w.sig)
	cleanVectorState()
	if err != nil {
		return nil, fmt.Errorf("crypto: seal: sign: %w", err)
	}

	return &Payload{
		V:           payloadVersion,
		Algs:        algs,
		CtKem:       EncodeBase64URL(w.ctKem),
		Nonce:       EncodeBase64URL(w.nonce),
		AAD:         EncodeBase64URL(w.aad),
		Ciphertext:  EncodeBase64URL(w.ciphertext),
		Sig:         EncodeBase64URL(w.sig),
		ServerSigPk: s.key.pubB64,
	}, nil
}

// Seal encrypts and signs one payload; see Sealer.Seal. Use a Sealer to seal
// several payloads for one inbox.
func Seal(recipientPublicKey, plaintext, aad []byte, key *SigningKey, context string) (*Payload, error) {
	s, err := NewSealer(recipientPublicKey, key, context)
	if err != nil {
		return nil, err
	}
	return s.Seal(plaintext, aad)
}
