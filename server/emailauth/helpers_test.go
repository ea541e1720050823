package emailauth

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"net"
	"strings"
	"testing"

	"github.com/emersion/go-msgauth/dkim"
)

var (
	clientIP = net.ParseIP("127.0.0.1")
	otherIP  = net.ParseIP("192.0.2.9")
)

// testMessage is an unsigned message from dana@example.org.
func testMessage(body string) []byte {
	return []byte(strings.ReplaceAll(`From: "Dana Example" <dana@example.org>
To: bob@sandbox.test
Subject: DKIM test
Date: Sat, 21 Nov 2026 13:25:55 +0000
Message-ID: <dkim-test@example.org>

`+body, "\n", "\r\n"))
}

// sign adds a DKIM-Signature for domain and selector made with key.
func sign(t testing.TB, msg []byte, domain, selector string, key crypto.Signer) []byte {
	t.Helper()
	var out bytes.Buffer
	err := dkim.Sign(&out, bytes.NewReader(msg), &dkim.SignOptions{Domain: domain, Selector: selector, Signer: key})
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return out.Bytes()
}

func newEd25519Key(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("generate key: %v", err)
	}
	return key
}

// keyRecord is the DKIM TXT record publishing key's public half.
func keyRecord(t testing.TB, key crypto.Signer) string {
	t.Helper()
	switch pub := key.Public().(type) {
	case ed25519.PublicKey:
		return "v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(pub)
	case *rsa.PublicKey:
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			t.Fatalf("marshal key: %v", err)
		}
		return "v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(der)
	}
	t.Fatalf("unsupported key %T", key)
	return ""
}

// blockingResolver never answers before its context ends, like DNS on a
// machine without network.
type blockingResolver struct{}

func (blockingResolver) LookupTXT(ctx context.Context, _ string) ([]string, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (blockingResolver) LookupMX(ctx context.Context, _ string) ([]*net.MX, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (blockingResolver) LookupIPAddr(ctx context.Context, _ string) ([]net.IPAddr, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (blockingResolver) LookupAddr(ctx context.Context, _ string) ([]string, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// deafResolver ignores its context and answers only when released.
type deafResolver struct{ release chan struct{} }

func (d deafResolver) LookupTXT(context.Context, string) ([]string, error) {
	<-d.release
	return nil, &net.DNSError{Err: "released", IsNotFound: true}
}

func (d deafResolver) LookupMX(context.Context, string) ([]*net.MX, error) {
	<-d.release
	return nil, &net.DNSError{Err: "released", IsNotFound: true}
}

func (d deafResolver) LookupIPAddr(context.Context, string) ([]net.IPAddr, error) {
	<-d.release
	return nil, &net.DNSError{Err: "released", IsNotFound: true}
}

func (d deafResolver) LookupAddr(context.Context, string) ([]string, error) {
	<-d.release
	return nil, &net.DNSError{Err: "released", IsNotFound: true}
}
