package servertest

import (
	"crypto/tls"
	"testing"
	"time"

	"sandview/server/tlscert"
)

// SelfSignedTLS is a server TLS configuration with a certificate for
// localhost and 127.0.0.1 signed by itself, made as a sandbox makes its
// own at start (tlscert), and that certificate in PEM: what a client
// trusts it with.
func SelfSignedTLS(t testing.TB) (*tls.Config, []byte) {
	t.Helper()
	cert, err := tlscert.Generate([]string{"localhost", "127.0.0.1", "::1"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return cert.Config(), cert.PEM()
}
