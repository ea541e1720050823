package crypto

import (
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"sync"

	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
)

// ErrDecryptionFailed is the one generic error for every failure to open a
// payload except a server-key mismatch: malformed payload, bad signature,
// wrong context, wrong inbox key or corrupted ciphertext all look alike.
var ErrDecryptionFailed = errors.New("decryption failed")

// ErrServerKeyMismatch reports a payload signed by a key other than the
// server key pinned when the inbox was created.
var ErrServerKeyMismatch = errors.New("server signing key does not match the key pinned for this inbox")

// wireScratchSize is the size of the buffers an Opener reuses to decode
// payloads: room for about 9 KiB of aad and ciphertext, which covers
// metadata and most parsed content. Larger payloads get a buffer of their
// own.
const wireScratchSize = 16 << 10

// Opener holds the parsed keys of one inbox, so opening many payloads does
// not re-parse keys. Create it with NewOpener; the zero value is not usable.
// It is safe for concurrent use.
type Opener struct {
	kem      *mlkem768.PrivateKey
	pinned   serverKey          // pinned ML-DSA-65 public key
	verifier *mldsa65.PublicKey // pinned, unpacked
	context  string
	scratch  sync.Pool // *[wireScratchSize]byte; holds only public payload bytes
	prks     prkCache  // the keys of the last encapsulations opened
}

// NewOpener parses an inbox's ML-KEM-768 secret key and the server's
// ML-DSA-65 public key pinned at inbox creation. context is the deployment's
// context string; "" means DefaultContext.
func NewOpener(secretKey, pinnedServerKey []byte, context string) (*Opener, error) {
	defer cleanVectorState()
	kem, err := parseKEMSecretKey(secretKey)
	if err != nil {
		return nil, err
	}
	if len(pinnedServerKey) != SigPublicKeySize {
		return nil, fmt.Errorf("crypto: pinned server key is %d bytes, want %d", len(pinnedServerKey), SigPublicKeySize)
	}
	var verifier mldsa65.PublicKey
	if err := verifier.UnmarshalBinary(pinnedServerKey); err != nil {
		return nil, fmt.Errorf("crypto: invalid pinned server key: %w", err)
	}
	if context == "" {
		context = DefaultContext
	}
	o := &Opener{
		kem:      kem,
		pinned:   newServerKey(pinnedServerKey),
		verifier: &verifier,
		context:  context,
	}
	o.scratch.New = func() any { return new([wireScratchSize]byte) }
	return o, nil
}

// Open checks, verifies and decrypts a payload and returns its plaintext.
// In order: Check; the payload's server_sig_pk must equal the pinned key
// (constant time), else ErrServerKeyMismatch; the ML-DSA-65 signature (empty
// ML-DSA context) must verify over the transcript; then ML-KEM-768
// decapsulation, HKDF-SHA-512 and AES-256-GCM. Any other failure returns
// exactly ErrDecryptionFailed. The payloads of one message share their
// encapsulation (see Envelope): the Opener remembers the HKDF key of the
// last few it decapsulated, so a message costs one decapsulation.
func (o *Opener) Open(p *Payload) ([]byte, error) {
	if p == nil || p.checkHeader() != nil {
		return nil, ErrDecryptionFailed
	}
	scratch := o.scratch.Get().(*[wireScratchSize]byte)
	defer o.scratch.Put(scratch)
	w, keyMatches, err := p.decode(o.context, &o.pinned, scratch[:])
	if err != nil {
		return nil, ErrDecryptionFailed
	}
	if !keyMatches {
		return nil, ErrServerKeyMismatch
	}
	// The payload key equals the pinned key, so the pre-parsed verifier
	// checks the signature made with it.
	valid := mldsa65.Verify(o.verifier, w.transcript, nil, w.sig)
	cleanVectorState()
	if !valid {
		return nil, ErrDecryptionFailed
	}

	var prk [sha512.Size]byte
	defer clear(prk[:])
	salt := sha256.Sum256(w.ctKem)
	if !o.prks.get(&salt, &prk) {
		if err := o.decapsulate(w.ctKem, &salt, &prk); err != nil {
			return nil, ErrDecryptionFailed
		}
	}
	aead, err := newAEADFromPRK(prk[:], o.context, w.aad)
	if err != nil {
		return nil, ErrDecryptionFailed
	}
	plaintext, err := aead.Open(nil, w.nonce, w.ciphertext, w.aad)
	if err != nil {
		return nil, ErrDecryptionFailed
	}
	return plaintext, nil
}

// decapsulate recovers the HKDF pseudorandom key of ctKem (whose SHA-256
// is salt) into prk and remembers it for the other payloads of its
// message.
func (o *Opener) decapsulate(ctKem []byte, salt *[sha256.Size]byte, prk *[sha512.Size]byte) error {
	var ss [mlkem768.SharedKeySize]byte
	defer clear(ss[:])
	o.kem.DecapsulateTo(ss[:], ctKem)
	cleanVectorState()
	key, err := extractKeySalted(ss[:], salt)
	if err != nil {
		return err
	}
	defer clear(key)
	copy(prk[:], key)
	o.prks.put(salt, key)
	return nil
}

// Open opens one payload; see Opener.Open. Errors from parsing the keys are
// returned as such (they say nothing about the payload). Use an Opener to
// open several payloads of one inbox.
func Open(p *Payload, secretKey, pinnedServerKey []byte, context string) ([]byte, error) {
	o, err := NewOpener(secretKey, pinnedServerKey, context)
	if err != nil {
		return nil, err
	}
	return o.Open(p)
}
