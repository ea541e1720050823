// Package testproxy is a test helper of the client's packages: a
// streaming reverse proxy to a real server, for fault tests.
package testproxy

import (
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"testing"
)

// New returns a streaming reverse proxy to target for fault tests. It has its own transport, whose idle connections are closed
// before the server stops (a connection that never carried a request holds
// up the server's graceful shutdown).
func New(t testing.TB, target string) *httputil.ReverseProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0)
	transport := &http.Transport{}
	rp.Transport = transport
	t.Cleanup(transport.CloseIdleConnections)
	return rp
}
