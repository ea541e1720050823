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

// Envelope is one ML-KEM-768 encapsulation to an inbox, shared by the
// payloads of one message. Sharing ct_kem changes nothing a reader checks:
// each payload still gets its own AES-256-GCM key, because HKDF's info
// binds the payload's aad (which differs per payload: ":metadata",
// ":parsed", ":raw"), and its own random nonce; it saves an encapsulation
// and an HKDF extract per payload, and the payloads may keep one copy of
// ct_kem. Create it with Sealer.NewEnvelope and Close it when the message
// is sealed. It is not safe for concurrent use.
type Envelope struct {
	sealer *Sealer
	ctKem  []byte
	prk    []byte // HKDF pseudorandom key of the shared secret
}

// NewEnvelope encapsulates a fresh key to the inbox.
func (s *Sealer) NewEnvelope() (*Envelope, error) {
	var seed [mlkem768.EncapsulationSeedSize]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("crypto: seal: %w", err)
	}
	ctKem := make([]byte, KEMCiphertextSize)
	var ss [mlkem768.SharedKeySize]byte
	s.recipient.EncapsulateTo(ctKem, ss[:], seed[:])
	cleanVectorState()
	clear(seed[:])
	prk, err := extractKey(ss[:], ctKem)
	clear(ss[:])
	if err != nil {
		return nil, fmt.Errorf("crypto: seal: %w", err)
	}
	return &Envelope{sealer: s, ctKem: ctKem, prk: prk}, nil
}

// CtKem is the envelope's ML-KEM ciphertext. Do not modify it.
func (e *Envelope) CtKem() []byte { return e.ctKem }

// Close forgets the envelope's key material.
func (e *Envelope) Close() { clear(e.prk) }

// Encrypt encrypts plaintext with aad as additional authenticated data
// into an unsigned Sealed: the costly signature is left to Sealer.Sign, so
// a server can store mail encrypted at once and sign it later. With
// ownKEM the payload carries ct_kem itself; otherwise it shares the
// envelope's, which its keeper passes to Sign and AppendJSON.
func (e *Envelope) Encrypt(plaintext, aad []byte, ownKEM bool) (Sealed, error) {
	return e.AppendEncrypt(nil, plaintext, aad, ownKEM)
}

// AppendEncrypt is Encrypt appending the payload to dst: the result is
// dst extended by SealedSize(len(aad), len(plaintext), ownKEM) bytes, the
// payload, so that several payloads may share one buffer.
func (e *Envelope) AppendEncrypt(dst, plaintext, aad []byte, ownKEM bool) ([]byte, error) {
	_, out, err := e.appendEncrypt(dst, plaintext, aad, ownKEM)
	return out, err
}

// appendEncrypt is AppendEncrypt, also returning the payload's fields.
func (e *Envelope) appendEncrypt(dst, plaintext, aad []byte, ownKEM bool) (sealedFields, []byte, error) {
	var ctKem []byte
	if ownKEM {
		ctKem = e.ctKem
	}
	aead, err := newAEADFromPRK(e.prk, e.sealer.context, aad)
	if err != nil {
		return sealedFields{}, nil, fmt.Errorf("crypto: seal: %w", err)
	}
	out, f := newSealed(dst, ctKem, aad, len(plaintext))
	if _, err := rand.Read(f.nonce); err != nil {
		return sealedFields{}, nil, fmt.Errorf("crypto: seal: %w", err)
	}
	aead.Seal(f.ciphertext[:0], f.nonce, plaintext, aad)
	return f, out, nil
}

// Seal is Encrypt followed by the signature (hedged ML-DSA-65, empty
// ML-DSA context): the mirror image of Opener.Open.
func (e *Envelope) Seal(plaintext, aad []byte, ownKEM bool) (Sealed, error) {
	return e.AppendSeal(nil, plaintext, aad, ownKEM)
}

// AppendSeal is Seal appending the payload to dst, as AppendEncrypt does.
func (e *Envelope) AppendSeal(dst, plaintext, aad []byte, ownKEM bool) ([]byte, error) {
	start := len(dst)
	f, out, err := e.appendEncrypt(dst, plaintext, aad, ownKEM)
	if err != nil {
		return nil, err
	}
	if err := e.sealer.signFields(&f, e.ctKem); err != nil {
		return nil, err
	}
	out[start+1] |= sealedSigned
	return out, nil
}

// Seal encrypts and signs one payload in an envelope of its own and returns
// it in its wire form.
func (s *Sealer) Seal(plaintext, aad []byte) (*Payload, error) {
	env, err := s.NewEnvelope()
	if err != nil {
		return nil, err
	}
	defer env.Close()
	sealed, err := env.Seal(plaintext, aad, true)
	if err != nil {
		return nil, err
	}
	f, err := sealed.fields()
	if err != nil {
		return nil, err
	}
	return &Payload{
		V:           payloadVersion,
		Algs:        DefaultAlgs(),
		CtKem:       EncodeBase64URL(f.ctKem),
		Nonce:       EncodeBase64URL(f.nonce),
		AAD:         EncodeBase64URL(f.aad),
		Ciphertext:  EncodeBase64URL(f.ciphertext),
		Sig:         EncodeBase64URL(f.sig),
		ServerSigPk: s.key.pubB64,
	}, nil
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

// Seal encrypts and signs one payload; see Sealer.Seal. Use a Sealer to seal
// several payloads for one inbox.
func Seal(recipientPublicKey, plaintext, aad []byte, key *SigningKey, context string) (*Payload, error) {
	s, err := NewSealer(recipientPublicKey, key, context)
	if err != nil {
		return nil, err
	}
	return s.Seal(plaintext, aad)
}
