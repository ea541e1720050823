package httpapi_test

import (
	"net/http"
	"testing"

	"sandview/server"
	"sandview/server/servertest"
)

// TestEmptyBodyIsTheEmptyObject: the server's routes read an empty body as
// {}, so the route's own rules decide (see httpapi.DecodeBody).
func TestEmptyBodyIsTheEmptyObject(t *testing.T) {
	_, a := servertest.StartAPI(t)
	a.ExpectError(http.StatusBadRequest, "POST", "/api/inboxes", nil, "clientKemPk is required")
	a.ExpectError(http.StatusBadRequest, "POST", "/api/test/emails", nil, "to is required")

	_, plain := servertest.StartAPI(t, func(cfg *server.Config) { cfg.EncryptionPolicy = "disabled" })
	var in struct{ EmailAddress string }
	plain.Expect(http.StatusCreated, "POST", "/api/inboxes", nil, &in)
	if in.EmailAddress == "" {
		t.Fatal("inbox created from an empty body has no address")
	}
}
