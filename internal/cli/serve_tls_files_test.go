package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeTestCert writes a self-signed certificate for mail.test and
// 127.0.0.1 and its key as PEM files in dir.
func writeTestCert(t *testing.T, dir, name string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(42), Subject: pkix.Name{CommonName: "mail.test"},
		DNSNames: []string{"mail.test"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestServeTLSCertFromFiles: with --tls-cert and --tls-key (here from
// SVC_TLS_CERT and SVC_TLS_KEY) serve presents that certificate, names
// its file and SHA-256 and makes none of its own.
func TestServeTLSCertFromFiles(t *testing.T) {
	dir, data := t.TempDir(), filepath.Join(t.TempDir(), "data")
	certFile, keyFile := writeTestCert(t, dir, "mail")
	t.Setenv("SVC_TLS_CERT", certFile)
	t.Setenv("SVC_TLS_KEY", keyFile)
	srv := startServerProcess(t, t.TempDir(), "serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--data", data, "--catch-all", "qa@sandbox.test")
	if got := bannerField(t, srv.banner, "STARTTLS"); got != "offered (not required), certificate from --tls-cert" {
		t.Fatalf("STARTTLS line %q", got)
	}
	port, exported := bannerSMTP(t, srv.banner)
	if got := bannerField(t, srv.banner, "TLS cert"); got != certFile || exported != certFile {
		t.Fatalf("TLS cert line %q, export %q, want %s", got, exported, certFile)
	}
	peer, err := sendSTARTTLS(net.JoinHostPort("127.0.0.1", port), "mail.test", certFile, nil, "app@example.org",
		[]string{"someone@example.org"}, []byte("Subject: own certificate\r\n\r\nhi\r\n"))
	if err != nil {
		t.Fatalf("a client verifying mail.test against %s: %v", certFile, err)
	}
	if got := bannerField(t, srv.banner, "SHA-256"); got != fingerprint(peer.Raw) {
		t.Fatalf("banner fingerprint %s, the presented certificate's %s", got, fingerprint(peer.Raw))
	}
	if _, err := os.Stat(filepath.Join(data, smtpTLSCertFile)); !os.IsNotExist(err) {
		t.Fatalf("serve made a certificate of its own besides --tls-cert: %v", err)
	}
	shellMust(t, t.TempDir(), srv.exports, `sandview wait --inbox qa@sandbox.test --subject '^own certificate$' --timeout 30s`)
}

// TestTLSSettingErrors: a certificate that cannot be read or does not
// match its key, half a pair, and TLS required with STARTTLS off stop
// serve and --local at once with one line naming the flags and the cause.
func TestTLSSettingErrors(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := writeTestCert(t, dir, "one")
	_, otherKey := writeTestCert(t, dir, "other")
	missing := filepath.Join(dir, "missing.pem")
	listen := []string{"--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0"}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unreadable", []string{"serve", "--tls-cert", missing, "--tls-key", keyFile}, []string{"--tls-cert/--tls-key", missing, keyFile, "no such file or directory"}},
		{"mismatched", []string{"serve", "--tls-cert", certFile, "--tls-key", otherKey}, []string{"--tls-cert/--tls-key", certFile, otherKey, "private key does not match public key"}},
		{"half a pair", []string{"serve", "--tls-cert", certFile}, []string{"--tls-cert and --tls-key go together"}},
		{"required without STARTTLS", []string{"serve", "--smtp-starttls=false", "--smtp-require-tls"}, []string{"--smtp-starttls=false", "--smtp-require-tls"}},
		{"local unreadable", []string{"--local", "--tls-cert", certFile, "--tls-key", missing}, []string{"--tls-cert/--tls-key", missing, "no such file or directory"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			h := &cli{t: t, home: home, ctx: t.Context()}
			r := h.finish(h.startRaw(append(append([]string{"--home", home}, c.args...), listen...)...))
			line := strings.TrimSpace(r.stderr)
			if r.code == 0 || strings.Contains(line, "\n") {
				t.Fatalf("exit %d, stderr %q; want one line and a failure", r.code, r.stderr)
			}
			for _, want := range c.want {
				if !strings.Contains(line, want) {
					t.Fatalf("stderr %q lacks %q", line, want)
				}
			}
		})
	}
}
