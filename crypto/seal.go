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
	w, err := s.encrypt(plaintext, aad)
	if err != nil {
		return nil, err
	}
	if err := s.signWire(w); err != nil {
		return nil, err
	}
	return s.payload(w), nil
}

// Encrypt is Seal without the signature, the costly half: the payload's sig
// is a placeholder of SignatureSize zero bytes, so its encoding already has
// its final length, and no reader accepts it until Sign replaces it. A
// server uses it to store mail encrypted at once and sign it later.
func (s *Sealer) Encrypt(plaintext, aad []byte) (*Payload, error) {
	w, err := s.encrypt(plaintext, aad)
	if err != nil {
		return nil, err
	}
	return s.payload(w), nil
}

// Sign signs a payload made by Encrypt (or re-signs one made by Seal) for
// this sealer's server key and context, replacing its sig. The payload must
// name this sealer's server key.
func (s *Sealer) Sign(p *Payload) error {
	if err := p.checkHeader(); err != nil {
		return err
	}
	if p.ServerSigPk != s.key.pubB64 {
		return errors.New("crypto: sign: payload names another server key")
	}
	own := serverKey{raw: s.key.pub, b64: s.key.pubB64}
	w, _, err := p.decode(s.context, &own, nil)
	if err != nil {
		return err
	}
	if err := s.signWire(w); err != nil {
		return err
	}
	p.Sig = EncodeBase64URL(w.sig)
	return nil
}

// encrypt encapsulates a fresh key to the recipient and encrypts plaintext
// into a wire whose sig is all zeros.
func (s *Sealer) encrypt(plaintext, aad []byte) (wire, error) {
	w := newWire(nil, DefaultAlgs(), s.context, len(aad), len(plaintext)+TagSize)

	var seed [mlkem768.EncapsulationSeedSize]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return wire{}, fmt.Errorf("crypto: seal: %w", err)
	}
	var ss [mlkem768.SharedKeySize]byte
	s.recipient.EncapsulateTo(w.ctKem, ss[:], seed[:])
	cleanVectorState()
	clear(seed[:])
	aead, err := newAEAD(ss[:], w.ctKem, s.context, aad)
	clear(ss[:])
	if err != nil {
		return wire{}, fmt.Errorf("crypto: seal: %w", err)
	}

	if _, err := rand.Read(w.nonce); err != nil {
		return wire{}, fmt.Errorf("crypto: seal: %w", err)
	}
	copy(w.aad, aad)
	aead.Seal(w.ciphertext[:0], w.nonce, plaintext, aad)
	copy(w.serverSigPk, s.key.pub)
	return w, nil
}

// signWire signs w's transcript into w.sig.
func (s *Sealer) signWire(w wire) error {
	err := mldsa65.SignTo(s.key.sk, w.transcript, nil, true, w.sig)
	cleanVectorState()
	if err != nil {
		return fmt.Errorf("crypto: seal: sign: %w", err)
	}
	return nil
}

// payload encodes w in the wire's JSON form.
func (s *Sealer) payload(w wire) *Payload {
	return &Payload{
		V:           payloadVersion,
		Algs:        DefaultAlgs(),
		CtKem:       EncodeBase64URL(w.ctKem),
		Nonce:       EncodeBase64URL(w.nonce),
		AAD:         EncodeBase64URL(w.aad),
		Ciphertext:  EncodeBase64URL(w.ciphertext),
		Sig:         EncodeBase64URL(w.sig),
		ServerSigPk: s.key.pubB64,
	}
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
