package tlscert_test

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sandview/server/tlscert"
)

// TestGenerate: a certificate made at start is for the names given, host
// names and IP addresses apart, valid from a little before now for
// Validity; its PEM holds it alone and its fingerprint is its SHA-256; a
// client trusting the PEM verifies every name.
func TestGenerate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c, err := tlscert.Generate([]string{"box.example", "localhost", "127.0.0.1", "::1"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Names(); !slices.Equal(got, []string{"box.example", "localhost", "127.0.0.1", "::1"}) {
		t.Fatalf("names %v", got)
	}
	if !c.NotAfter().Equal(now.Add(tlscert.Validity)) {
		t.Fatalf("not after %v", c.NotAfter())
	}
	block, rest := pem.Decode(c.PEM())
	if block == nil || block.Type != "CERTIFICATE" || len(rest) != 0 {
		t.Fatalf("PEM:\n%s", c.PEM())
	}
	sum := sha256.Sum256(block.Bytes)
	if want := strings.ToUpper(hex.EncodeToString(sum[:])); strings.ReplaceAll(c.Fingerprint(), ":", "") != want || len(c.Fingerprint()) != 32*3-1 {
		t.Fatalf("fingerprint %s, want %s with colons", c.Fingerprint(), want)
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if leaf.NotBefore.After(now) || leaf.IsCA || len(leaf.SubjectKeyId) == 0 || !slices.Equal(leaf.AuthorityKeyId, leaf.SubjectKeyId) {
		t.Fatalf("not before %v, CA %v, key ids %x %x", leaf.NotBefore, leaf.IsCA, leaf.SubjectKeyId, leaf.AuthorityKeyId)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	for _, name := range c.Names() {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, CurrentTime: now}); err != nil {
			t.Errorf("verify %s: %v", name, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "other.example", Roots: roots, CurrentTime: now}); err == nil {
		t.Error("the certificate verifies for a name it was not made for")
	}
	if cfg := c.Config(); len(cfg.Certificates) != 1 || cfg.MinVersion != tls.VersionTLS12 {
		t.Fatalf("config %+v", cfg)
	}
	if _, err := tlscert.Generate(nil, now); err == nil {
		t.Fatal("a certificate for no name")
	}
}

// TestLoad: a pair written as PEM loads with the same fingerprint; an
// unreadable file and a key of another certificate are errors naming the
// files.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, c *tlscert.Cert) (certFile, keyFile string) {
		key, err := x509.MarshalPKCS8PrivateKey(c.Config().Certificates[0].PrivateKey)
		if err != nil {
			t.Fatal(err)
		}
		certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
		if err := os.WriteFile(certFile, c.PEM(), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600); err != nil {
			t.Fatal(err)
		}
		return certFile, keyFile
	}
	one, err := tlscert.Generate([]string{"one.example"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	two, err := tlscert.Generate([]string{"two.example"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	oneCert, oneKey := write("one", one)
	_, twoKey := write("two", two)
	loaded, err := tlscert.Load(oneCert, oneKey)
	if err != nil || loaded.Fingerprint() != one.Fingerprint() || !slices.Equal(loaded.Names(), []string{"one.example"}) {
		t.Fatalf("load: %v", err)
	}
	if _, err := tlscert.Load(oneCert, twoKey); err == nil || !strings.Contains(err.Error(), oneCert) || !strings.Contains(err.Error(), twoKey) ||
		!strings.Contains(err.Error(), "does not match") {
		t.Fatalf("a key of another certificate: %v", err)
	}
	if _, err := tlscert.Load(filepath.Join(dir, "missing.pem"), oneKey); err == nil || !strings.Contains(err.Error(), "missing.pem") {
		t.Fatalf("a missing certificate: %v", err)
	}
}
