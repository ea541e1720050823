package crypto

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"

	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
)

type testInbox struct {
	kp     KeyPair
	key    *SigningKey
	sealer *Sealer
	opener *Opener
}

func newTestInbox(t testing.TB, context string) testInbox {
	t.Helper()
	kp, err := GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	key, err := GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := NewSealer(kp.PublicKey, key, context)
	if err != nil {
		t.Fatal(err)
	}
	opener, err := NewOpener(kp.SecretKey, key.PublicKey(), context)
	if err != nil {
		t.Fatal(err)
	}
	return testInbox{kp: kp, key: key, sealer: sealer, opener: opener}
}

func TestSealOpenRoundTrip(t *testing.T) {
	kib := bytes.Repeat([]byte("0123456789abcdef"), 64)
	tests := []struct {
		name      string
		context   string
		plaintext []byte
		aad       []byte
	}{
		{"empty plaintext and aad", "", nil, nil},
		{"short", "", []byte("hello"), []byte("service:metadata")},
		{"1 KiB", "", kib, []byte("service:parsed")},
		{"larger than the scratch buffer", "", bytes.Repeat(kib, 20), []byte("service:raw")},
		{"deployment context", fixtureContext, []byte(`{"subject":"hi"}`), []byte("vaultsandbox:metadata")},
		{"binary aad", "ctx", []byte{0, 1, 2}, []byte{0, 0xff, '\n'}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newTestInbox(t, tt.context)
			p, err := in.sealer.Seal(tt.plaintext, tt.aad)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Check(); err != nil {
				t.Fatalf("sealed payload fails Check: %v", err)
			}
			if p.ServerSigPk != EncodeBase64URL(in.key.PublicKey()) {
				t.Error("server_sig_pk is not the signer's public key")
			}
			if aad, _ := DecodeBase64URL(p.AAD); !bytes.Equal(aad, tt.aad) {
				t.Errorf("aad = %q, want %q", aad, tt.aad)
			}

			// Through JSON, as a client receives it.
			js, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := ParsePayload(js)
			if err != nil {
				t.Fatalf("ParsePayload: %v", err)
			}
			got, err := in.opener.Open(parsed)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if !bytes.Equal(got, tt.plaintext) {
				t.Errorf("Open = %q, want %q", got, tt.plaintext)
			}

			got, err = Open(p, in.kp.SecretKey, in.key.PublicKey(), tt.context)
			if err != nil || !bytes.Equal(got, tt.plaintext) {
				t.Errorf("package Open = %q, %v", got, err)
			}
		})
	}
}

func TestSealIsRandomized(t *testing.T) {
	in := newTestInbox(t, "")
	a, err := in.sealer.Seal([]byte("same"), []byte("aad"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := in.sealer.Seal([]byte("same"), []byte("aad"))
	if err != nil {
		t.Fatal(err)
	}
	if a.CtKem == b.CtKem || a.Nonce == b.Nonce || a.Ciphertext == b.Ciphertext || a.Sig == b.Sig {
		t.Error("two seals of the same plaintext share a random field")
	}
}

func payloadField(t testing.TB, p *Payload, name string) *string {
	t.Helper()
	switch name {
	case "ct_kem":
		return &p.CtKem
	case "nonce":
		return &p.Nonce
	case "aad":
		return &p.AAD
	case "ciphertext":
		return &p.Ciphertext
	case "sig":
		return &p.Sig
	case "server_sig_pk":
		return &p.ServerSigPk
	}
	t.Fatalf("unknown field %q", name)
	return nil
}

func withField(t testing.TB, p *Payload, name string, edit func([]byte) []byte) *Payload {
	t.Helper()
	q := *p
	f := payloadField(t, &q, name)
	b, err := DecodeBase64URL(*f)
	if err != nil {
		t.Fatal(err)
	}
	*f = EncodeBase64URL(edit(b))
	return &q
}

func flipAt(pos int) func([]byte) []byte {
	return func(b []byte) []byte {
		i := pos
		if i < 0 {
			i += len(b)
		}
		b[i] ^= 0x01
		return b
	}
}

func TestOpenRejectsOneByteFlip(t *testing.T) {
	in := newTestInbox(t, "")
	p, err := in.sealer.Seal([]byte("secret message"), []byte("service:metadata"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		field string
		want  error
	}{
		{"ct_kem", ErrDecryptionFailed},
		{"nonce", ErrDecryptionFailed},
		{"aad", ErrDecryptionFailed},
		{"ciphertext", ErrDecryptionFailed},
		{"sig", ErrDecryptionFailed},
		{"server_sig_pk", ErrServerKeyMismatch},
	}
	for _, tt := range tests {
		for _, pos := range []int{0, 5, -1} {
			q := withField(t, p, tt.field, flipAt(pos))
			got, err := in.opener.Open(q)
			if err != tt.want { //nolint:errorlint // the error must be exactly the sentinel, not wrap it
				t.Errorf("%s flipped at %d: Open = %q, %v; want %v", tt.field, pos, got, err, tt.want)
			}
		}
	}
	// The untouched payload still opens, so the failures above come from the flips.
	if _, err := in.opener.Open(p); err != nil {
		t.Fatalf("Open of the original payload: %v", err)
	}
}

func TestOpenRejectsResignedTampering(t *testing.T) {
	in := newTestInbox(t, "")
	p, err := in.sealer.Seal([]byte("secret message"), []byte("service:metadata"))
	if err != nil {
		t.Fatal(err)
	}
	resign := func(t *testing.T, p *Payload, context string) *Payload {
		t.Helper()
		w, _, err := p.decode(context, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := mldsa65.SignTo(in.key.sk, w.transcript, nil, false, w.sig); err != nil {
			t.Fatal(err)
		}
		q := *p
		q.Sig = EncodeBase64URL(w.sig)
		return &q
	}
	tests := []struct {
		name    string
		payload *Payload
		context string // opener context; the sealer used DefaultContext
	}{
		{"ct_kem", withField(t, p, "ct_kem", flipAt(0)), DefaultContext},
		{"nonce", withField(t, p, "nonce", flipAt(0)), DefaultContext},
		{"aad", withField(t, p, "aad", flipAt(0)), DefaultContext},
		{"ciphertext body", withField(t, p, "ciphertext", flipAt(0)), DefaultContext},
		{"tag", withField(t, p, "ciphertext", flipAt(-1)), DefaultContext},
		{"truncated ciphertext", withField(t, p, "ciphertext", func(b []byte) []byte { return b[:len(b)-1] }), DefaultContext},
		{"context only in KDF", p, "other:email:v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := resign(t, tt.payload, tt.context)
			o, err := NewOpener(in.kp.SecretKey, in.key.PublicKey(), tt.context)
			if err != nil {
				t.Fatal(err)
			}
			w, _, err := q.decode(tt.context, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !mldsa65.Verify(o.verifier, w.transcript, nil, w.sig) {
				t.Fatal("re-signed payload does not verify; the test would not reach decryption")
			}
			if got, err := o.Open(q); err != ErrDecryptionFailed { //nolint:errorlint // must be exactly the sentinel
				t.Errorf("Open = %q, %v; want ErrDecryptionFailed", got, err)
			}
		})
	}
}

func TestOpenWrongKeysAndContext(t *testing.T) {
	in := newTestInbox(t, "")
	p, err := in.sealer.Seal([]byte("secret"), []byte("aad"))
	if err != nil {
		t.Fatal(err)
	}
	other := newTestInbox(t, "")
	// Signed by another server key that the payload names as its own.
	forged, err := Seal(in.kp.PublicKey, []byte("secret"), []byte("aad"), other.key, "")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		payload   *Payload
		secretKey []byte
		pinned    []byte
		context   string
		want      error
	}{
		{"correct", p, in.kp.SecretKey, in.key.PublicKey(), "", nil},
		{"default context spelled out", p, in.kp.SecretKey, in.key.PublicKey(), DefaultContext, nil},
		{"wrong pinned key", p, in.kp.SecretKey, other.key.PublicKey(), "", ErrServerKeyMismatch},
		{"signed by another server", forged, in.kp.SecretKey, in.key.PublicKey(), "", ErrServerKeyMismatch},
		{"wrong inbox key", p, other.kp.SecretKey, in.key.PublicKey(), "", ErrDecryptionFailed},
		{"wrong context", p, in.kp.SecretKey, in.key.PublicKey(), fixtureContext, ErrDecryptionFailed},
		{"nil payload", nil, in.kp.SecretKey, in.key.PublicKey(), "", ErrDecryptionFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(tt.payload, tt.secretKey, tt.pinned, tt.context)
			if err != tt.want { //nolint:errorlint // must be exactly the sentinel
				t.Errorf("Open error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestNewOpenerRejectsKeys(t *testing.T) {
	in := newTestInbox(t, "")
	badHash := bytes.Clone(in.kp.SecretKey)
	badHash[publicKeyOffset+KEMPublicKeySize] ^= 1 // H(ek) no longer matches ek
	tests := []struct {
		name           string
		secret, pinned []byte
	}{
		{"short secret key", in.kp.SecretKey[:2399], in.key.PublicKey()},
		{"corrupt secret key", badHash, in.key.PublicKey()},
		{"short pinned key", in.kp.SecretKey, in.key.PublicKey()[:1951]},
		{"nil pinned key", in.kp.SecretKey, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewOpener(tt.secret, tt.pinned, ""); err == nil {
				t.Error("NewOpener succeeded")
			}
		})
	}
}

func TestNewSealerRejects(t *testing.T) {
	in := newTestInbox(t, "")
	unreduced := bytes.Repeat([]byte{0xff}, KEMPublicKeySize)
	tests := []struct {
		name string
		pk   []byte
		key  *SigningKey
	}{
		{"short public key", in.kp.PublicKey[:1183], in.key},
		{"unreduced public key", unreduced, in.key},
		{"nil signing key", in.kp.PublicKey, nil},
		{"zero signing key", in.kp.PublicKey, &SigningKey{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewSealer(tt.pk, tt.key, ""); err == nil {
				t.Error("NewSealer succeeded")
			}
			if _, err := Seal(tt.pk, []byte("x"), nil, tt.key, ""); err == nil {
				t.Error("Seal succeeded")
			}
		})
	}
}

func TestOpenerConcurrent(t *testing.T) {
	in := newTestInbox(t, "")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			msg := []byte{byte(i)}
			p, err := in.sealer.Seal(msg, nil)
			if err != nil {
				t.Error(err)
				return
			}
			got, err := in.opener.Open(p)
			if err != nil || !bytes.Equal(got, msg) {
				t.Errorf("goroutine %d: Open = %x, %v", i, got, err)
			}
		})
	}
	wg.Wait()
}
