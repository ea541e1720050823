package crypto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// Sealed is an encrypted payload in the compact binary form a server keeps
// it in: the fields of an EncryptedPayload as bytes instead of base64url
// text, without server_sig_pk (always the sealing server's own key, added
// when the payload is rendered) and, for a payload that shares its
// Envelope's encapsulation with others, without ct_kem (whoever keeps the
// payloads keeps one copy of it and passes it back). Layout:
//
//	tag ‖ flags ‖ [ct_kem] ‖ nonce ‖ sig ‖ uvarint(len(aad)) ‖ aad ‖ ciphertext
//
// The sig of an unsigned payload (see Envelope.Encrypt) is a placeholder of
// zero bytes and its flags say so; Sign fills it in a copy, SignInPlace
// where it lies. A Sealed is otherwise never modified in place, so it may
// be shared once signed.
type Sealed []byte

// sealedTag starts every Sealed; it is not '{', so a stored payload of
// either form (Sealed or the JSON of an EncryptedPayload) names its form.
const sealedTag = 0xA5

// Sealed flags.
const (
	sealedOwnKEM = 1 << 0 // ct_kem is inside the payload
	sealedSigned = 1 << 1 // sig is a real signature
)

// sealedFields are the parts of a Sealed, as sub-slices of it.
type sealedFields struct {
	flags      byte
	ctKem      []byte // nil when shared
	nonce      []byte
	sig        []byte
	aad        []byte
	ciphertext []byte
}

// fields splits p into its fields, checking the layout.
func (p Sealed) fields() (sealedFields, error) {
	if len(p) < 2 || p[0] != sealedTag || p[1]&^(sealedOwnKEM|sealedSigned) != 0 {
		return sealedFields{}, errors.New("crypto: not a sealed payload")
	}
	f := sealedFields{flags: p[1]}
	rest := p[2:]
	take := func(n int) []byte {
		if len(rest) < n {
			return nil
		}
		out := rest[:n:n]
		rest = rest[n:]
		return out
	}
	if f.flags&sealedOwnKEM != 0 {
		f.ctKem = take(KEMCiphertextSize)
	}
	f.nonce = take(NonceSize)
	f.sig = take(SignatureSize)
	if f.sig == nil || (f.flags&sealedOwnKEM != 0 && f.ctKem == nil) {
		return sealedFields{}, errors.New("crypto: sealed payload is truncated")
	}
	aadLen, used := binary.Uvarint(rest)
	if used <= 0 || aadLen > uint64(len(rest)-used) {
		return sealedFields{}, errors.New("crypto: sealed payload is truncated")
	}
	rest = rest[used:]
	f.aad = take(int(aadLen))
	if len(rest) < TagSize {
		return sealedFields{}, errors.New("crypto: sealed payload is truncated")
	}
	f.ciphertext = rest
	return f, nil
}

// kem returns the payload's ct_kem: its own, or shared when it has none.
func (f *sealedFields) kem(shared []byte) ([]byte, error) {
	if f.ctKem != nil {
		return f.ctKem, nil
	}
	if len(shared) != KEMCiphertextSize {
		return nil, fmt.Errorf("crypto: sealed payload shares a ct_kem, got %d bytes", len(shared))
	}
	return shared, nil
}

// IsSealed reports whether data is a Sealed rather than another form of
// payload (such as the JSON of an EncryptedPayload).
func IsSealed(data []byte) bool {
	return len(data) > 0 && data[0] == sealedTag
}

// CtKem returns p's own ct_kem, or nil when p shares its envelope's. The
// result is part of p: do not modify it.
func (p Sealed) CtKem() []byte {
	f, err := p.fields()
	if err != nil {
		return nil
	}
	return f.ctKem
}

// SealedSize is the length of the Sealed of plaintextLen bytes of
// plaintext with aadLen bytes of aad (Envelope.AppendEncrypt,
// Envelope.AppendSeal); with ownKEM the payload carries ct_kem.
func SealedSize(aadLen, plaintextLen int, ownKEM bool) int {
	n := 2 + NonceSize + SignatureSize + uvarintLen(uint64(aadLen)) + aadLen + plaintextLen + TagSize
	if ownKEM {
		n += KEMCiphertextSize
	}
	return n
}

// uvarintLen is the length of x in binary.AppendUvarint's encoding.
func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// newSealed appends to dst an unsigned Sealed for aad and plaintextLen
// bytes of plaintext, writing everything but the nonce and ciphertext,
// and returns the extended buffer and the new payload's fields; ctKem is
// nil to share the envelope's. The payload is the last SealedSize bytes.
func newSealed(dst []byte, ctKem []byte, aad []byte, plaintextLen int) ([]byte, sealedFields) {
	p := slices.Grow(dst, SealedSize(len(aad), plaintextLen, ctKem != nil))
	start := len(p)
	p = append(p, sealedTag, 0)
	f := sealedFields{}
	if ctKem != nil {
		p[start+1] |= sealedOwnKEM
		p = append(p, ctKem...)
	}
	f.flags = p[start+1]
	grow := func(n int) []byte {
		p = append(p, make([]byte, n)...) // within the capacity grown above
		return p[len(p)-n : len(p) : len(p)]
	}
	if ctKem != nil {
		f.ctKem = p[start+2 : start+2+len(ctKem) : start+2+len(ctKem)]
	}
	f.nonce = grow(NonceSize)
	f.sig = grow(SignatureSize)
	p = binary.AppendUvarint(p, uint64(len(aad)))
	f.aad = grow(len(aad))
	copy(f.aad, aad)
	f.ciphertext = grow(plaintextLen + TagSize)
	return p, f
}

// Sign returns a copy of p signed with this sealer's server key and
// context (a signed p is signed again); sharedCtKem is the envelope's
// ct_kem when p has none of its own.
func (s *Sealer) Sign(p Sealed, sharedCtKem []byte) (Sealed, error) {
	signed := slices.Clone(p)
	if err := s.SignInPlace(signed, sharedCtKem); err != nil {
		return nil, err
	}
	return signed, nil
}

// SignInPlace is Sign writing the signature and the flag that says so into
// p itself, which keeps its length: for a keeper that lets no one else
// read p until it has recorded it signed (a reader of the other bytes of
// p's buffer reads bytes SignInPlace does not write).
func (s *Sealer) SignInPlace(p Sealed, sharedCtKem []byte) error {
	f, err := p.fields()
	if err != nil {
		return err
	}
	ctKem, err := f.kem(sharedCtKem)
	if err != nil {
		return err
	}
	if err := s.signFields(&f, ctKem); err != nil {
		return err
	}
	p[1] |= sealedSigned
	return nil
}

// signFields writes the signature of f's transcript into f.sig.
func (s *Sealer) signFields(f *sealedFields, ctKem []byte) error {
	algs := DefaultAlgs()
	scratch := s.key.scratch(transcriptSize(algs, s.context, len(f.aad), len(f.ciphertext)) + SignatureSize)
	defer s.key.wires.Put(scratch)
	w := newWire(*scratch, algs, s.context, len(f.aad), len(f.ciphertext))
	copy(w.ctKem, ctKem)
	copy(w.nonce, f.nonce)
	copy(w.aad, f.aad)
	copy(w.ciphertext, f.ciphertext)
	copy(w.serverSigPk, s.key.pub)
	if err := s.signWire(w); err != nil {
		return err
	}
	copy(f.sig, w.sig)
	return nil
}

// AppendJSON appends p as the JSON of an EncryptedPayload naming this
// sealer's server key; sharedCtKem is the envelope's ct_kem when p has
// none of its own. An unsigned payload is refused: no reader may get one.
func (s *Sealer) AppendJSON(dst []byte, p Sealed, sharedCtKem []byte) ([]byte, error) {
	f, err := p.fields()
	if err != nil {
		return nil, err
	}
	if f.flags&sealedSigned == 0 {
		return nil, errors.New("crypto: sealed payload is not signed yet")
	}
	ctKem, err := f.kem(sharedCtKem)
	if err != nil {
		return nil, err
	}
	dst = append(dst, `{"v":`...)
	dst = strconv.AppendInt(dst, payloadVersion, 10)
	dst = append(dst, `,"algs":{"kem":"`+AlgKEM+`","sig":"`+AlgSig+`","aead":"`+AlgAEAD+`","kdf":"`+AlgKDF+`"},"ct_kem":"`...)
	dst = b64.AppendEncode(dst, ctKem)
	dst = append(dst, `","nonce":"`...)
	dst = b64.AppendEncode(dst, f.nonce)
	dst = append(dst, `","aad":"`...)
	dst = b64.AppendEncode(dst, f.aad)
	dst = append(dst, `","ciphertext":"`...)
	dst = b64.AppendEncode(dst, f.ciphertext)
	dst = append(dst, `","sig":"`...)
	dst = b64.AppendEncode(dst, f.sig)
	dst = append(dst, `","server_sig_pk":"`...)
	dst = append(dst, s.key.pubB64...)
	return append(dst, `"}`...), nil
}

// JSONSize is the length of p's JSON (see AppendJSON), for sizing buffers.
func (s *Sealer) JSONSize(p Sealed) int {
	return 256 + len(s.key.pubB64) + b64.EncodedLen(len(p)+KEMCiphertextSize)
}

// Import turns a payload this sealer's server key made, in the JSON of an
// EncryptedPayload, into a Sealed with its own ct_kem. A payload whose sig
// is all zero bytes (the placeholder of an unsigned payload) is imported
// unsigned.
func (s *Sealer) Import(data []byte) (Sealed, error) {
	p, err := ParsePayload(data)
	if err != nil {
		return nil, err
	}
	own := serverKey{raw: s.key.pub, b64: s.key.pubB64}
	w, keyMatches, err := p.decode(s.context, &own, nil)
	if err != nil {
		return nil, err
	}
	if !keyMatches {
		return nil, errors.New("crypto: import: payload names another server key")
	}
	buf, f := newSealed(nil, w.ctKem, w.aad, len(w.ciphertext)-TagSize)
	out := Sealed(buf)
	copy(f.nonce, w.nonce)
	copy(f.ciphertext, w.ciphertext)
	copy(f.sig, w.sig)
	if !bytes.Equal(w.sig, make([]byte, SignatureSize)) {
		out[1] |= sealedSigned
	}
	return out, nil
}
