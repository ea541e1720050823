package crypto

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCheckRejects(t *testing.T) {
	in := newTestInbox(t, "")
	valid, err := in.sealer.Seal([]byte("secret"), []byte("aad"))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(*Payload)) *Payload {
		q := *valid
		f(&q)
		return &q
	}
	resize := func(n int) func([]byte) []byte {
		return func([]byte) []byte { return make([]byte, n) }
	}
	tests := []struct {
		name    string
		payload *Payload
		want    string // substring of the Check error
	}{
		{"version 0", edit(func(p *Payload) { p.V = 0 }), "v is 0"},
		{"version 2", edit(func(p *Payload) { p.V = 2 }), "v is 2"},
		{"kem name", edit(func(p *Payload) { p.Algs.KEM = "ML-KEM-1024" }), "algs"},
		{"sig name", edit(func(p *Payload) { p.Algs.Sig = "ml-dsa-65" }), "algs"},
		{"aead name", edit(func(p *Payload) { p.Algs.AEAD = "AES-128-GCM" }), "algs"},
		{"kdf name", edit(func(p *Payload) { p.Algs.KDF = "" }), "algs"},
		{"ct_kem short", withField(t, valid, "ct_kem", resize(1087)), "ct_kem"},
		{"ct_kem long", withField(t, valid, "ct_kem", resize(1089)), "ct_kem"},
		{"nonce short", withField(t, valid, "nonce", resize(11)), "nonce"},
		{"nonce long", withField(t, valid, "nonce", resize(13)), "nonce"},
		{"sig short", withField(t, valid, "sig", resize(3308)), "sig"},
		{"server_sig_pk short", withField(t, valid, "server_sig_pk", resize(1951)), "server_sig_pk"},
		{"ciphertext below tag", withField(t, valid, "ciphertext", resize(15)), "ciphertext"},
		{"ct_kem missing", edit(func(p *Payload) { p.CtKem = "" }), "ct_kem"},
		{"ct_kem standard alphabet", edit(func(p *Payload) { p.CtKem = "+" + p.CtKem[1:] }), "ct_kem"},
		{"nonce padded", edit(func(p *Payload) { p.Nonce = p.Nonce[:15] + "=" }), "nonce"},
		{"aad slash", edit(func(p *Payload) { p.AAD = "/" + p.AAD[1:] }), "aad"},
		{"ciphertext newline", edit(func(p *Payload) { p.Ciphertext = p.Ciphertext[:4] + "\n" + p.Ciphertext[5:] }), "ciphertext"},
		{"sig space", edit(func(p *Payload) { p.Sig = " " + p.Sig[1:] }), "sig"},
		{"server_sig_pk bad char", edit(func(p *Payload) { p.ServerSigPk = "*" + p.ServerSigPk[1:] }), "server_sig_pk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.payload.Check()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check() = %v, want an error mentioning %q", err, tt.want)
			}
			if _, err := in.opener.Open(tt.payload); err != ErrDecryptionFailed { //nolint:errorlint // must be exactly the sentinel
				t.Errorf("Open error = %v, want ErrDecryptionFailed", err)
			}
		})
	}
	if err := valid.Check(); err != nil {
		t.Fatalf("Check of the valid payload: %v", err)
	}
}

func TestParsePayloadRejects(t *testing.T) {
	tests := []struct{ name, in string }{
		{"not JSON", "{"},
		{"null", "null"},
		{"wrong type", `{"v":"1"}`},
		{"empty object", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, err := ParsePayload([]byte(tt.in)); err == nil {
				t.Errorf("ParsePayload(%q) = %+v, want an error", tt.in, p)
			}
		})
	}
}

func FuzzParsePayload(f *testing.F) {
	in := newTestInbox(f, "")
	sealed, err := in.sealer.Seal([]byte("seed"), []byte("aad"))
	if err != nil {
		f.Fatal(err)
	}
	js, err := json.Marshal(sealed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(js)
	for _, fp := range loadFixturePayloads(f)[:2] {
		b, err := json.Marshal(fp.p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"v":1,"algs":{"kem":"ML-KEM-768","sig":"ML-DSA-65","aead":"AES-256-GCM","kdf":"HKDF-SHA-512"}}`))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePayload(data)
		if err != nil {
			return
		}
		if err := p.Check(); err != nil {
			t.Fatalf("ParsePayload accepted a payload that fails Check: %v", err)
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ParsePayload(again)
		if err != nil || *q != *p {
			t.Fatalf("re-parse = %+v, %v; want %+v", q, err, p)
		}
		pt, err := in.opener.Open(p)
		if err == nil && *p != *sealed {
			t.Fatalf("Open accepted a payload that is not the sealed one: %q", pt)
		}
		if err != nil && !errors.Is(err, ErrDecryptionFailed) && !errors.Is(err, ErrServerKeyMismatch) {
			t.Fatalf("Open error %v is neither sentinel", err)
		}
	})
}
