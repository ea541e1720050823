package crypto

import (
	"errors"
	"strings"
	"testing"
)

func TestEncryptThenSignOpens(t *testing.T) {
	in := newTestInbox(t, fixtureContext)
	p, err := in.sealer.Encrypt([]byte("deferred"), []byte("vaultsandbox:parsed"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatalf("an unsigned payload must have the signed payload's shape: %v", err)
	}
	if p.Sig != strings.Repeat("A", len(p.Sig)) {
		t.Fatalf("placeholder sig is not all zero bytes: %.40s…", p.Sig)
	}
	if _, err := in.opener.Open(p); !errors.Is(err, ErrDecryptionFailed) {
		t.Fatalf("unsigned payload opened: %v", err)
	}
	sealed, err := in.sealer.Seal([]byte("deferred"), []byte("vaultsandbox:parsed"))
	if err != nil {
		t.Fatal(err)
	}
	unsignedLen := len(p.Sig)
	if err := in.sealer.Sign(p); err != nil {
		t.Fatal(err)
	}
	if len(p.Sig) != unsignedLen || len(p.Sig) != len(sealed.Sig) {
		t.Fatalf("sig length %d, placeholder %d, sealed %d: the encoded size must not change", len(p.Sig), unsignedLen, len(sealed.Sig))
	}
	got, err := in.opener.Open(p)
	if err != nil || string(got) != "deferred" {
		t.Fatalf("Open after Sign = %q, %v", got, err)
	}
}

func TestSignRejects(t *testing.T) {
	in := newTestInbox(t, "")
	other := newTestInbox(t, "")
	foreign, err := other.sealer.Encrypt([]byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	badVersion, err := in.sealer.Encrypt([]byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	badVersion.V = 2
	truncated, err := in.sealer.Encrypt([]byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	truncated.CtKem = truncated.CtKem[:10]
	for name, p := range map[string]*Payload{"another server's key": foreign, "version 2": badVersion, "short ct_kem": truncated} {
		t.Run(name, func(t *testing.T) {
			before := p.Sig
			if err := in.sealer.Sign(p); err == nil {
				t.Fatal("Sign succeeded")
			}
			if p.Sig != before {
				t.Error("a refused Sign changed the payload")
			}
		})
	}
}

// TestSignUsesSealerContext: a payload signed later carries the sealer's
// context in its transcript, like one sealed at once.
func TestSignUsesSealerContext(t *testing.T) {
	in := newTestInbox(t, fixtureContext)
	p, err := in.sealer.Encrypt([]byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.sealer.Sign(p); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(p, in.kp.SecretKey, in.key.PublicKey(), DefaultContext); !errors.Is(err, ErrDecryptionFailed) {
		t.Fatalf("opened under another context: %v", err)
	}
}
