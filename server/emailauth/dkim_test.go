package emailauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"strings"
	"testing"
	"time"

	"sandview/model"
)

func TestCheckDKIM(t *testing.T) {
	good := newEd25519Key(t)
	unpublished := newEd25519Key(t)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatalf("generate RSA key: %v", err)
	}
	dns := newBoundedResolver(StaticResolver{TXT: map[string][]string{
		"sel._domainkey.example.org":     {keyRecord(t, good)},
		"rsa._domainkey.example.org":     {keyRecord(t, rsaKey)},
		"stale._domainkey.example.org":   {keyRecord(t, good)}, // not the key that signed
		"revoked._domainkey.example.org": {"v=DKIM1; k=ed25519; p="},
	}})
	msg := testMessage("Hello Bob,\nthe parcel ships today.\n")
	ctx := context.Background()

	t.Run("ed25519 pass", func(t *testing.T) {
		got := checkDKIM(ctx, dns, sign(t, msg, "example.org", "sel", good))
		want := []model.DKIMResult{{Result: model.ResultPass, Domain: "example.org", Selector: "sel",
			Signature: "dkim=pass header.d=example.org header.s=sel"}}
		assertDKIM(t, got, want)
	})
	t.Run("RSA pass", func(t *testing.T) {
		got := checkDKIM(ctx, dns, sign(t, msg, "example.org", "rsa", rsaKey))
		if len(got) != 1 || got[0].Result != model.ResultPass {
			t.Errorf("checkDKIM = %+v, want one pass", got)
		}
	})
	t.Run("tampered body", func(t *testing.T) {
		signed := sign(t, msg, "example.org", "sel", good)
		tampered := bytes.Replace(signed, []byte("today"), []byte("never"), 1)
		got := checkDKIM(ctx, dns, tampered)
		want := []model.DKIMResult{{Result: model.ResultFail, Domain: "example.org", Selector: "sel",
			Signature: "dkim=fail (body hash mismatch) header.d=example.org header.s=sel"}}
		assertDKIM(t, got, want)
	})
	t.Run("tampered header", func(t *testing.T) {
		signed := sign(t, msg, "example.org", "sel", good)
		tampered := bytes.Replace(signed, []byte("Subject: DKIM test"), []byte("Subject: DKIM pest"), 1)
		got := checkDKIM(ctx, dns, tampered)
		if len(got) != 1 || got[0].Result != model.ResultFail || !strings.Contains(got[0].Signature, "signature mismatch") {
			t.Errorf("checkDKIM = %+v, want fail (signature mismatch)", got)
		}
	})
	t.Run("one good and one bad signature", func(t *testing.T) {
		signed := sign(t, sign(t, msg, "example.org", "sel", good), "example.org", "stale", unpublished)
		got := checkDKIM(ctx, dns, signed)
		want := []model.DKIMResult{
			{Result: model.ResultFail, Domain: "example.org", Selector: "stale",
				Signature: "dkim=fail (signature mismatch) header.d=example.org header.s=stale"},
			{Result: model.ResultPass, Domain: "example.org", Selector: "sel",
				Signature: "dkim=pass header.d=example.org header.s=sel"},
		}
		assertDKIM(t, got, want)
	})
	t.Run("unsigned", func(t *testing.T) {
		got := checkDKIM(ctx, dns, msg)
		assertDKIM(t, got, []model.DKIMResult{{Result: model.ResultNone, Signature: "dkim=none (message not signed)"}})
	})
	t.Run("no key published", func(t *testing.T) {
		got := checkDKIM(ctx, dns, sign(t, msg, "example.org", "missing", good))
		if len(got) != 1 || got[0].Result != model.ResultPermerror ||
			got[0].Signature != "dkim=permerror (no key for signature) header.d=example.org header.s=missing" {
			t.Errorf("checkDKIM = %+v, want permerror (no key for signature)", got)
		}
	})
	t.Run("revoked key", func(t *testing.T) {
		got := checkDKIM(ctx, dns, sign(t, msg, "example.org", "revoked", good))
		if len(got) != 1 || got[0].Result != model.ResultPermerror || !strings.Contains(got[0].Signature, "key revoked") {
			t.Errorf("checkDKIM = %+v, want permerror (key revoked)", got)
		}
	})
	t.Run("too many signatures", func(t *testing.T) {
		signed := msg
		for range maxSignatures + 2 {
			signed = sign(t, signed, "example.org", "sel", good)
		}
		got := checkDKIM(ctx, dns, signed)
		if len(got) != maxSignatures+2 {
			t.Fatalf("%d entries, want %d", len(got), maxSignatures+2)
		}
		if got[0].Result != model.ResultPass || got[maxSignatures].Result != model.ResultPermerror ||
			!strings.Contains(got[maxSignatures].Signature, "not verified") {
			t.Errorf("first %+v, beyond the cap %+v", got[0], got[maxSignatures])
		}
	})
}

func TestHasSignatureField(t *testing.T) {
	signed := sign(t, testMessage("hi\n"), "example.org", "sel", newEd25519Key(t))
	tests := map[string]struct {
		raw  []byte
		want bool
	}{
		"signed":              {signed, true},
		"unsigned":            {testMessage("hi\n"), false},
		"lowercase name":      {[]byte("From: a@example.org\r\ndkim-signature: v=1\r\n\r\nbody"), true},
		"named in the body":   {[]byte("From: a@example.org\r\n\r\nDKIM-Signature: v=1\r\n"), false},
		"named in a value":    {[]byte("Subject: DKIM-Signature\n X-DKIM-Signature: v=1\n\n"), false},
		"LF only, first line": {[]byte("DKIM-Signature: v=1\nFrom: a@example.org\n\nbody"), true},
		"empty":               {nil, false},
	}
	for name, tt := range tests {
		if got := hasSignatureField(tt.raw); got != tt.want {
			t.Errorf("%s: hasSignatureField = %t, want %t", name, got, tt.want)
		}
		if got := len(signatureTags(tt.raw)) > 0; got && !tt.want {
			t.Errorf("%s: signatureTags finds a signature hasSignatureField misses", name)
		}
	}
}

func TestCheckDKIMTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	signed := sign(t, testMessage("hi\n"), "example.org", "sel", newEd25519Key(t))
	got := checkDKIM(ctx, newBoundedResolver(blockingResolver{}), signed)
	if len(got) != 1 || got[0].Result != model.ResultTemperror || !strings.Contains(got[0].Signature, "dkim=temperror (dns timeout)") {
		t.Errorf("checkDKIM = %+v, want temperror (dns timeout)", got)
	}
}

func assertDKIM(t *testing.T, got, want []model.DKIMResult) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("checkDKIM = %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v\nwant %+v", i, got[i], want[i])
		}
	}
}
