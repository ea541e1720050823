package server_test

import (
	"net/http"
	"testing"

	"sandview/server"
)

// TestEmptyBodyIsTheEmptyObject: the server's routes read an empty body as
// {}, so the route's own rules decide (see httpapi.DecodeBody).
func TestEmptyBodyIsTheEmptyObject(t *testing.T) {
	_, a := startServer(t)
	a.expectError(http.StatusBadRequest, "POST", "/api/inboxes", nil, "clientKemPk is required")
	a.expectError(http.StatusBadRequest, "POST", "/api/test/emails", nil, "to is required")

	_, plain := startServer(t, func(cfg *server.Config) { cfg.EncryptionPolicy = "disabled" })
	var in struct{ EmailAddress string }
	plain.expect(http.StatusCreated, "POST", "/api/inboxes", nil, &in)
	if in.EmailAddress == "" {
		t.Fatal("inbox created from an empty body has no address")
	}
}
