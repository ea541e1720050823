package crypto

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
)

// openSealed renders a sealed payload as JSON and opens it as a client does.
func openSealed(t *testing.T, in testInbox, p Sealed, sharedCtKem []byte) ([]byte, error) {
	t.Helper()
	data, err := in.sealer.AppendJSON(nil, p, sharedCtKem)
	if err != nil {
		t.Fatalf("AppendJSON: %v", err)
	}
	payload, err := ParsePayload(data)
	if err != nil {
		t.Fatalf("rendered JSON does not parse: %v\n%s", err, data)
	}
	return in.opener.Open(payload)
}

// TestEnvelopePayloadsOpen seals a message's three payloads in one
// envelope, as a server does: the metadata carries ct_kem, the others
// share it; each opens on its own, with its own nonce.
func TestEnvelopePayloadsOpen(t *testing.T) {
	in := newTestInbox(t, fixtureContext)
	env, err := in.sealer.NewEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	meta, err := env.Seal([]byte(`{"subject":"hi"}`), []byte("vaultsandbox:metadata"), true)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := env.Encrypt([]byte(`{"text":"body"}`), []byte("vaultsandbox:parsed"), false)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := env.Encrypt([]byte("From: a\r\n\r\nbody"), []byte("vaultsandbox:raw"), false)
	if err != nil {
		t.Fatal(err)
	}
	if !meta.signed() || parsed.signed() {
		t.Fatalf("signed: metadata %t, parsed %t; want true, false", meta.signed(), parsed.signed())
	}
	if _, err := in.sealer.AppendJSON(nil, parsed, env.CtKem()); err == nil {
		t.Fatal("AppendJSON rendered an unsigned payload")
	}
	ctKem := meta.CtKem()
	if !bytes.Equal(ctKem, env.CtKem()) || parsed.CtKem() != nil {
		t.Fatal("the metadata must carry the envelope's ct_kem and the others none")
	}
	if _, err := in.sealer.Sign(parsed, nil); err == nil {
		t.Fatal("Sign succeeded without the shared ct_kem")
	}
	signedParsed, err := in.sealer.Sign(parsed, ctKem)
	if err != nil {
		t.Fatal(err)
	}
	signedRaw, err := in.sealer.Sign(raw, ctKem)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.signed() || len(signedParsed) != len(parsed) {
		t.Fatal("Sign must return a signed copy of the same size and leave its input alone")
	}
	nonces := map[string]bool{}
	for _, tt := range []struct {
		p    Sealed
		want string
	}{{meta, `{"subject":"hi"}`}, {signedParsed, `{"text":"body"}`}, {signedRaw, "From: a\r\n\r\nbody"}} {
		got, err := openSealed(t, in, tt.p, ctKem)
		if err != nil || string(got) != tt.want {
			t.Fatalf("open = %q, %v; want %q", got, err, tt.want)
		}
		f, err := tt.p.fields()
		if err != nil {
			t.Fatal(err)
		}
		nonces[string(f.nonce)] = true
	}
	if len(nonces) != 3 {
		t.Fatal("payloads of one envelope must get distinct nonces")
	}
}

// TestAppendedPayloadsShareOneBuffer: AppendSeal and AppendEncrypt lay
// payloads one after another in one buffer, each SealedSize long, without
// reallocating a buffer grown for them all, SignInPlace signs them where
// they lie, and each opens.
func TestAppendedPayloadsShareOneBuffer(t *testing.T) {
	in := newTestInbox(t, fixtureContext)
	env, err := in.sealer.NewEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	parts := []struct {
		plaintext, aad string
		ownKEM         bool
	}{
		{`{"subject":"hi"}`, "vaultsandbox:metadata", true},
		{`{"text":"body"}`, "vaultsandbox:parsed", false},
		{"From: a\r\n\r\n" + strings.Repeat("long body ", 100), "vaultsandbox:raw", false},
	}
	size := 0
	for _, p := range parts {
		size += SealedSize(len(p.aad), len(p.plaintext), p.ownKEM)
	}
	buf := make([]byte, 0, size)
	first := &buf[:1][0]
	var sealed []Sealed
	for i, p := range parts {
		start := len(buf)
		appendPayload := env.AppendEncrypt
		if i == 0 {
			appendPayload = env.AppendSeal
		}
		if buf, err = appendPayload(buf, []byte(p.plaintext), []byte(p.aad), p.ownKEM); err != nil {
			t.Fatal(err)
		}
		if got, want := len(buf)-start, SealedSize(len(p.aad), len(p.plaintext), p.ownKEM); got != want {
			t.Fatalf("payload %d takes %d bytes, SealedSize says %d", i, got, want)
		}
		sealed = append(sealed, Sealed(buf[start:]))
	}
	if len(buf) != size || &buf[0] != first {
		t.Fatal("the payloads did not fill the buffer grown for them")
	}
	// SignInPlace signs the unsigned ones where they lie, leaving every
	// other byte of the buffer as it was.
	ctKem := sealed[0].CtKem()
	before := slices.Clone(buf)
	for i := 1; i < len(sealed); i++ {
		if err := in.sealer.SignInPlace(sealed[i], ctKem); err != nil {
			t.Fatal(err)
		}
		if !sealed[i].signed() {
			t.Fatal("SignInPlace left its payload unsigned")
		}
	}
	if !bytes.Equal(buf[:len(sealed[0])], before[:len(sealed[0])]) {
		t.Fatal("SignInPlace changed another payload of its buffer")
	}
	for i, p := range parts {
		got, err := openSealed(t, in, sealed[i], ctKem)
		if err != nil || string(got) != p.plaintext {
			t.Fatalf("payload %d opens to %q, %v", i, got, err)
		}
	}
}

// TestSignUsesSealerContext: a payload signed later carries the sealer's
// context in its transcript, like one sealed at once.
func TestSignUsesSealerContext(t *testing.T) {
	in := newTestInbox(t, fixtureContext)
	env, err := in.sealer.NewEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	p, err := env.Encrypt([]byte("x"), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = in.sealer.Sign(p, nil); err != nil {
		t.Fatal(err)
	}
	data, err := in.sealer.AppendJSON(nil, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := ParsePayload(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(payload, in.kp.SecretKey, in.key.PublicKey(), DefaultContext); !errors.Is(err, ErrDecryptionFailed) {
		t.Fatalf("opened under another context: %v", err)
	}
}

// TestImportReadsStoredJSON: payloads stored as EncryptedPayload JSON (by
// earlier servers) become Sealed ones that render and open the same;
// an all-zero placeholder sig imports as unsigned.
func TestImportReadsStoredJSON(t *testing.T) {
	in := newTestInbox(t, "")
	signed, err := in.sealer.Seal([]byte("stored"), []byte("service:parsed"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := in.sealer.AppendJSON(nil, mustImport(t, in, signed), nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParsePayload(data)
	if err != nil || *again != *signed {
		t.Fatalf("imported payload renders differently: %v", err)
	}
	unsigned := *signed
	unsigned.Sig = EncodeBase64URL(make([]byte, SignatureSize))
	p := mustImport(t, in, &unsigned)
	if p.signed() {
		t.Fatal("a placeholder sig imported as signed")
	}
	if p, err = in.sealer.Sign(p, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := openSealed(t, in, p, nil); err != nil || string(got) != "stored" {
		t.Fatalf("open = %q, %v", got, err)
	}
	other := newTestInbox(t, "")
	foreign, err := other.sealer.Seal([]byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.sealer.Import(payloadJSONOf(t, foreign)); err == nil {
		t.Fatal("imported a payload of another server key")
	}
	if _, err := in.sealer.Import([]byte(`{"v":1}`)); err == nil {
		t.Fatal("imported a malformed payload")
	}
}

func mustImport(t *testing.T, in testInbox, p *Payload) Sealed {
	t.Helper()
	sealed, err := in.sealer.Import(payloadJSONOf(t, p))
	if err != nil {
		t.Fatal(err)
	}
	return sealed
}

// TestSealedRejectsDamage: a damaged Sealed is an error, never a panic or
// a signature over garbage.
func TestSealedRejectsDamage(t *testing.T) {
	in := newTestInbox(t, "")
	env, err := in.sealer.NewEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	good, err := env.Seal([]byte("hello"), []byte("aad"), true)
	if err != nil {
		t.Fatal(err)
	}
	damaged := map[string]Sealed{
		"empty":         nil,
		"JSON":          Sealed(`{"v":1}`),
		"unknown flags": append(Sealed{sealedTag, 0x80}, good[2:]...),
		"truncated":     good[:len(good)-20],
		"no ciphertext": good[:2+KEMCiphertextSize+NonceSize+SignatureSize+1+3],
		"aad too long":  append(append(Sealed{}, good[:2+KEMCiphertextSize+NonceSize+SignatureSize]...), 0xff, 0xff, 0x03),
	}
	for name, p := range damaged {
		t.Run(name, func(t *testing.T) {
			if _, err := in.sealer.Sign(p, nil); err == nil {
				t.Error("Sign succeeded")
			}
			if _, err := in.sealer.AppendJSON(nil, p, nil); err == nil {
				t.Error("AppendJSON succeeded")
			}
		})
	}
}

func FuzzSealedFields(f *testing.F) {
	in := newTestInbox(f, "")
	env, err := in.sealer.NewEnvelope()
	if err != nil {
		f.Fatal(err)
	}
	for _, own := range []bool{true, false} {
		p, err := env.Encrypt([]byte("hello"), []byte("service:raw"), own)
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fields, err := Sealed(data).fields()
		if err != nil {
			return
		}
		total := 2 + len(fields.ctKem) + len(fields.nonce) + len(fields.sig) + len(fields.aad) + len(fields.ciphertext)
		if total > len(data) || len(fields.nonce) != NonceSize || len(fields.sig) != SignatureSize || len(fields.ciphertext) < TagSize {
			t.Fatalf("fields of %d bytes do not fit the layout: %+v", len(data), fields)
		}
	})
}

func payloadJSONOf(t *testing.T, p *Payload) []byte {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// signed reports whether p carries its signature.
func (p Sealed) signed() bool {
	f, err := p.fields()
	return err == nil && f.flags&sealedSigned != 0
}

// TestOpenerRemembersEnvelopes opens the payloads of more messages than
// an Opener remembers, each message's second payload from the key its
// first left: every payload opens to its own plaintext, a message's key
// is remembered after its first payload, and a payload whose aad was
// changed still fails with the remembered key.
func TestOpenerRemembersEnvelopes(t *testing.T) {
	in := newTestInbox(t, fixtureContext)
	for k := range prkCacheSize + 3 {
		env, err := in.sealer.NewEnvelope()
		if err != nil {
			t.Fatal(err)
		}
		meta, err := env.Seal(fmt.Appendf(nil, `{"n":%d}`, k), []byte("vaultsandbox:metadata"), true)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := env.Seal(fmt.Appendf(nil, `{"text":"%d"}`, k), []byte("vaultsandbox:parsed"), false)
		env.Close()
		if err != nil {
			t.Fatal(err)
		}
		salt := sha256.Sum256(meta.CtKem())
		var prk [sha512.Size]byte
		if in.opener.prks.get(&salt, &prk) {
			t.Fatalf("message %d: a key remembered before its first payload was opened", k)
		}
		if got, err := openSealed(t, in, meta, nil); err != nil || string(got) != fmt.Sprintf(`{"n":%d}`, k) {
			t.Fatalf("message %d: metadata opens to %q, %v", k, got, err)
		}
		if !in.opener.prks.get(&salt, &prk) {
			t.Fatalf("message %d: no key remembered after its first payload", k)
		}
		if got, err := openSealed(t, in, parsed, meta.CtKem()); err != nil || string(got) != fmt.Sprintf(`{"text":"%d"}`, k) {
			t.Fatalf("message %d: content opens to %q, %v", k, got, err)
		}
	}
	// A payload re-signed with another aad under a remembered ct_kem: the
	// key for its aad differs, so the tag does not check.
	env, err := in.sealer.NewEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	meta, err := env.Seal([]byte(`{}`), []byte("vaultsandbox:metadata"), true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openSealed(t, in, meta, nil); err != nil {
		t.Fatal(err)
	}
	data, err := in.sealer.AppendJSON(nil, meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePayload(data)
	if err != nil {
		t.Fatal(err)
	}
	p.AAD = EncodeBase64URL([]byte("vaultsandbox:parsed"))
	w, _, err := p.decode(fixtureContext, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := mldsa65.SignTo(in.key.sk, w.transcript, nil, false, w.sig); err != nil {
		t.Fatal(err)
	}
	p.Sig = EncodeBase64URL(w.sig)
	if !mldsa65.Verify(in.opener.verifier, w.transcript, nil, w.sig) {
		t.Fatal("re-signed payload does not verify; the test would not reach decryption")
	}
	if _, err := in.opener.Open(p); !errors.Is(err, ErrDecryptionFailed) {
		t.Fatalf("a payload with another aad under a remembered key: %v, want ErrDecryptionFailed", err)
	}
}
