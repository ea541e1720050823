package crypto

import (
	"encoding/json"
	"fmt"
)

// Payload format constants.
const (
	// NonceSize is the AES-256-GCM nonce size.
	NonceSize = 12
	// TagSize is the AES-256-GCM authentication tag size.
	TagSize = 16
	// DefaultContext is the context string used when a deployment names none.
	DefaultContext = "service:email:v1"

	// AlgKEM names the key encapsulation mechanism.
	AlgKEM = "ML-KEM-768"
	// AlgSig names the signature scheme.
	AlgSig = "ML-DSA-65"
	// AlgAEAD names the authenticated cipher.
	AlgAEAD = "AES-256-GCM"
	// AlgKDF names the key derivation function.
	AlgKDF = "HKDF-SHA-512"

	// payloadVersion is the only supported value of Payload.V; it is also the
	// first byte of the signed transcript.
	payloadVersion = 1
)

// Algs names the algorithms of a payload (also reported by server-info).
type Algs struct {
	KEM  string `json:"kem"`
	Sig  string `json:"sig"`
	AEAD string `json:"aead"`
	KDF  string `json:"kdf"`
}

// DefaultAlgs returns the only supported algorithm suite.
func DefaultAlgs() Algs {
	return Algs{KEM: AlgKEM, Sig: AlgSig, AEAD: AlgAEAD, KDF: AlgKDF}
}

// Payload is the wire form of an encrypted, signed message (EncryptedPayload).
// All byte fields are unpadded base64url.
type Payload struct {
	V           int    `json:"v"`
	Algs        Algs   `json:"algs"`
	CtKem       string `json:"ct_kem"`
	Nonce       string `json:"nonce"`
	AAD         string `json:"aad"`
	Ciphertext  string `json:"ciphertext"`
	Sig         string `json:"sig"`
	ServerSigPk string `json:"server_sig_pk"`
}

// ParsePayload decodes a JSON EncryptedPayload and validates it with Check.
func ParsePayload(data []byte) (*Payload, error) {
	var p Payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("crypto: parse payload: %w", err)
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Check validates a payload before any decryption: v is 1, the algorithm
// names are exactly the supported ones, every byte field is strict base64url,
// and the decoded sizes are ct_kem 1088, nonce 12, sig 3309,
// server_sig_pk 1952 and ciphertext at least the 16-byte tag. The error names
// the rule that failed.
func (p *Payload) Check() error {
	if err := p.checkHeader(); err != nil {
		return err
	}
	_, _, err := p.decode("", nil, nil)
	return err
}

// checkHeader validates the version and algorithm names.
func (p *Payload) checkHeader() error {
	if p.V != payloadVersion {
		return fmt.Errorf("crypto: payload: v is %d, want %d", p.V, payloadVersion)
	}
	if p.Algs != DefaultAlgs() {
		return fmt.Errorf("crypto: payload: algs %s:%s:%s:%s, want %s:%s:%s:%s",
			p.Algs.KEM, p.Algs.Sig, p.Algs.AEAD, p.Algs.KDF, AlgKEM, AlgSig, AlgAEAD, AlgKDF)
	}
	return nil
}

// serverKey is a server public key in both forms, so that a payload naming
// it can be recognised without decoding its server_sig_pk.
type serverKey struct {
	raw []byte
	b64 string // EncodeBase64URL(raw)
}

func newServerKey(raw []byte) serverKey {
	raw = append([]byte(nil), raw...)
	return serverKey{raw: raw, b64: EncodeBase64URL(raw)}
}

// decode checks the byte fields' sizes and decodes them into one wire
// buffer (scratch if large enough) whose transcript is built with the
// payload's algs and context.
//
// When pinned is non-nil and server_sig_pk is exactly pinned's encoding
// (compared in constant time), pinned's bytes are copied instead of decoded
// and keyMatches is true. Strict base64url is canonical, so any other
// server_sig_pk that decodes names a different key.
func (p *Payload) decode(context string, pinned *serverKey, scratch []byte) (w wire, keyMatches bool, err error) {
	aadLen := b64.DecodedLen(len(p.AAD))
	ctLen := b64.DecodedLen(len(p.Ciphertext))
	fields := []struct {
		name string
		got  int
		want int
	}{
		{"ct_kem", b64.DecodedLen(len(p.CtKem)), KEMCiphertextSize},
		{"nonce", b64.DecodedLen(len(p.Nonce)), NonceSize},
		{"sig", b64.DecodedLen(len(p.Sig)), SignatureSize},
		{"server_sig_pk", b64.DecodedLen(len(p.ServerSigPk)), SigPublicKeySize},
	}
	for _, f := range fields {
		if f.got != f.want {
			return wire{}, false, fmt.Errorf("crypto: payload: %s decodes to %d bytes, want %d", f.name, f.got, f.want)
		}
	}
	if ctLen < TagSize {
		return wire{}, false, fmt.Errorf("crypto: payload: ciphertext decodes to %d bytes, want at least %d", ctLen, TagSize)
	}

	w = newWire(scratch, p.Algs, context, aadLen, ctLen)
	for _, f := range []struct {
		name string
		dst  []byte
		src  string
	}{
		{"ct_kem", w.ctKem, p.CtKem},
		{"nonce", w.nonce, p.Nonce},
		{"aad", w.aad, p.AAD},
		{"ciphertext", w.ciphertext, p.Ciphertext},
		{"sig", w.sig, p.Sig},
	} {
		if err := decodeBase64URLTo(f.dst, f.src); err != nil {
			return wire{}, false, fmt.Errorf("crypto: payload: %s: %w", f.name, err)
		}
	}
	if pinned != nil && constantTimeEqual(p.ServerSigPk, pinned.b64) {
		copy(w.serverSigPk, pinned.raw)
		return w, true, nil
	}
	if err := decodeBase64URLTo(w.serverSigPk, p.ServerSigPk); err != nil {
		return wire{}, false, fmt.Errorf("crypto: payload: server_sig_pk: %w", err)
	}
	return w, false, nil
}
