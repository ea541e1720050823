package crypto

import (
	"bytes"
	"testing"

	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
)

// benchPlaintext is a ~1 KB payload, about the size of decrypted metadata.
var benchPlaintext = bytes.Repeat([]byte(`{"subject":"hello"}`), 54)

var benchAAD = []byte("service:metadata")

func BenchmarkOpen(b *testing.B) {
	in := newTestInbox(b, "")
	p, err := in.sealer.Seal(benchPlaintext, benchAAD)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.opener.Open(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSeal(b *testing.B) {
	in := newTestInbox(b, "")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.sealer.Seal(benchPlaintext, benchAAD); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncryptMessage is what a server does for one message before
// answering SMTP when it signs later: one envelope, three payloads
// encrypted, the metadata signed.
func BenchmarkEncryptMessage(b *testing.B) {
	in := newTestInbox(b, "")
	b.ReportAllocs()
	for b.Loop() {
		env, err := in.sealer.NewEnvelope()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := env.Seal(benchPlaintext, benchAAD, true); err != nil {
			b.Fatal(err)
		}
		for range 2 {
			if _, err := env.Encrypt(benchPlaintext, benchAAD, false); err != nil {
				b.Fatal(err)
			}
		}
		env.Close()
	}
}

// BenchmarkSign is the deferred half: signing a stored unsigned payload.
func BenchmarkSign(b *testing.B) {
	in := newTestInbox(b, "")
	env, err := in.sealer.NewEnvelope()
	if err != nil {
		b.Fatal(err)
	}
	p, err := env.Encrypt(benchPlaintext, benchAAD, false)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.sealer.Sign(p, env.CtKem()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCirclVerifyDecap is the floor for BenchmarkOpen: the bare circl
// ML-DSA-65 verification of the same transcript plus ML-KEM-768
// decapsulation, with keys and fields already decoded.
func BenchmarkCirclVerifyDecap(b *testing.B) {
	in := newTestInbox(b, "")
	p, err := in.sealer.Seal(benchPlaintext, benchAAD)
	if err != nil {
		b.Fatal(err)
	}
	w, _, err := p.decode(DefaultContext, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var pk mldsa65.PublicKey
	if err := pk.UnmarshalBinary(in.key.PublicKey()); err != nil {
		b.Fatal(err)
	}
	sk, err := parseKEMSecretKey(in.kp.SecretKey)
	if err != nil {
		b.Fatal(err)
	}
	var ss [mlkem768.SharedKeySize]byte
	b.ReportAllocs()
	for b.Loop() {
		if !mldsa65.Verify(&pk, w.transcript, nil, w.sig) {
			b.Fatal("verify failed")
		}
		sk.DecapsulateTo(ss[:], w.ctKem)
	}
}

// BenchmarkCirclSignEncap is the floor for BenchmarkSeal: bare circl
// ML-KEM-768 encapsulation plus hedged ML-DSA-65 signing of a transcript of
// the same size.
func BenchmarkCirclSignEncap(b *testing.B) {
	in := newTestInbox(b, "")
	w := newWire(nil, DefaultAlgs(), DefaultContext, len(benchAAD), len(benchPlaintext)+TagSize)
	var ss [mlkem768.SharedKeySize]byte
	b.ReportAllocs()
	for b.Loop() {
		in.sealer.recipient.EncapsulateTo(w.ctKem, ss[:], nil)
		if err := mldsa65.SignTo(in.key.sk, w.transcript, nil, true, w.sig); err != nil {
			b.Fatal(err)
		}
	}
}
