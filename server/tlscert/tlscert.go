// Package tlscert provides the certificate the SMTP server offers STARTTLS
// with: one made at start (ECDSA P-256, self-signed, for the names the
// server is reached by) or one loaded from PEM files; with the public part
// as PEM and its SHA-256 fingerprint, for clients to trust and check. The
// private key of a certificate made at start is never written anywhere.
package tlscert

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"strings"
	"time"
)

// Validity is how long a certificate made at start is valid: one is made
// at every start, so it only has to outlast a run of the server.
const Validity = 365 * 24 * time.Hour

// clockSkew backdates a certificate made at start, for clients whose
// clock is a little behind.
const clockSkew = time.Hour

// Cert is a certificate with its private key.
type Cert struct {
	pair tls.Certificate
	leaf *x509.Certificate
}

// Generate makes a self-signed certificate for names (host names and IP
// addresses), valid from now on for Validity. Its subject is the first
// name.
func Generate(names []string, now time.Time) (*Cert, error) {
	if len(names) == 0 {
		return nil, errors.New("tls certificate: no name to make it for")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tls certificate: generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("tls certificate: serial number: %w", err)
	}
	spki, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("tls certificate: %w", err)
	}
	keyID := sha256.Sum256(spki)
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		// Key identifiers (a truncated SHA-256 of the public key), which
		// strict verifiers (Python 3.13's default context) ask for.
		SubjectKeyId:          keyID[:20],
		AuthorityKeyId:        keyID[:20],
		Subject:               pkix.Name{CommonName: names[0], Organization: []string{"sandview (made at start)"}},
		NotBefore:             now.Add(-clockSkew),
		NotAfter:              now.Add(Validity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, name := range names {
		if ip := net.ParseIP(name); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, name)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("tls certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("tls certificate: %w", err)
	}
	return &Cert{pair: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, leaf: leaf}, nil
}

// Load reads a PEM certificate (chain) and its private key. The error
// names both files and says what is wrong: unreadable, not PEM, or a key
// that is not the certificate's.
func Load(certFile, keyFile string) (*Cert, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("tls certificate %s with key %s: %w", certFile, keyFile, err)
	}
	leaf := pair.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return nil, fmt.Errorf("tls certificate %s: %w", certFile, err)
		}
	}
	return &Cert{pair: pair, leaf: leaf}, nil
}

// Config is a server configuration presenting the certificate.
func (c *Cert) Config() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{c.pair}, MinVersion: tls.VersionTLS12}
}

// PEM is the certificate chain, public parts only, PEM-encoded: what a
// client trusts (a certificate made at start is its own root).
func (c *Cert) PEM() []byte {
	var b bytes.Buffer
	for _, der := range c.pair.Certificate {
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	return b.Bytes()
}

// Fingerprint is the SHA-256 of the certificate, as `openssl x509
// -fingerprint -sha256` shows it: colon-separated upper-case hex.
func (c *Cert) Fingerprint() string {
	sum := sha256.Sum256(c.leaf.Raw)
	hex := make([]string, len(sum))
	for i, b := range sum {
		hex[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(hex, ":")
}

// Names are the host names and IP addresses the certificate is for.
func (c *Cert) Names() []string {
	names := slices.Clone(c.leaf.DNSNames)
	for _, ip := range c.leaf.IPAddresses {
		names = append(names, ip.String())
	}
	return names
}

// NotAfter is when the certificate expires.
func (c *Cert) NotAfter() time.Time { return c.leaf.NotAfter }
