package server_test

import (
	"bytes"
	"testing"

	"sandview/server/servertest"
)

// api is the test client of the server's HTTP API.
type api = servertest.Client

// withoutTrace checks that a stored message starts with the server's
// Received trace header and returns the message after it.
func withoutTrace(t testing.TB, raw []byte) []byte {
	t.Helper()
	line, rest, ok := bytes.Cut(raw, []byte("\r\n"))
	if !ok || !bytes.HasPrefix(line, []byte("Received: from ")) {
		t.Fatalf("stored message does not start with a Received header: %.200q", raw)
	}
	return rest
}
