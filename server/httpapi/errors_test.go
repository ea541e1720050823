package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"sandview/crypto"
	"sandview/server"
	"sandview/server/servertest"
)

func TestAPIKeyIsRequired(t *testing.T) {
	srv, _ := servertest.StartAPI(t)
	for _, key := range []string{"", "wrong-key", "test-key-but-longer"} {
		a := &servertest.Client{T: t, Srv: srv, Key: key}
		a.ExpectError(http.StatusUnauthorized, "GET", "/api/check-key", nil, "API")
		a.ExpectError(http.StatusUnauthorized, "GET", "/api/events?inboxes=x", nil, "API")
		a.ExpectError(http.StatusUnauthorized, "POST", "/api/inboxes", map[string]any{}, "API")
	}
	var ok struct{ OK bool }
	servertest.NewClient(t, srv).Expect(http.StatusOK, "GET", "/api/check-key", nil, &ok)
	if !ok.OK {
		t.Fatal("check-key answered ok false")
	}
}

func TestCreateInboxValidation(t *testing.T) {
	_, a := servertest.StartAPI(t)
	taken := a.CreatePlain(map[string]any{"emailAddress": "taken@sandbox.test"})
	keys, _ := crypto.GenerateKeyPair()
	pk := crypto.EncodeBase64URL(keys.PublicKey)
	a.Expect(http.StatusCreated, "POST", "/api/inboxes", map[string]any{"clientKemPk": pk}, nil)

	cases := []struct {
		name   string
		body   any
		status int
		want   string
	}{
		{"ttl too small", map[string]any{"encryption": "plain", "ttl": 59}, 400, "ttl must be between 60 and 604800"},
		{"ttl too large", map[string]any{"encryption": "plain", "ttl": 604801}, 400, "ttl"},
		{"ttl overflowing", map[string]any{"encryption": "plain", "ttl": int64(9223372036854775807)}, 400, "ttl must be between"},
		{"ttl not integer", map[string]any{"encryption": "plain", "ttl": 90.5}, 400, "ttl"},
		{"ttl wrong type", map[string]any{"encryption": "plain", "ttl": "60"}, 400, "ttl"},
		{"unknown domain", map[string]any{"encryption": "plain", "emailAddress": "a@example.com"}, 400, "not allowed"},
		{"unknown bare domain", map[string]any{"encryption": "plain", "emailAddress": "example.com"}, 400, "not allowed"},
		{"too long", map[string]any{"encryption": "plain", "emailAddress": strings.Repeat("a", 250) + "@sandbox.test"}, 400, "at most 254"},
		{"bad local part", map[string]any{"encryption": "plain", "emailAddress": "a b@sandbox.test"}, 400, "not allowed"},
		{"double dot", map[string]any{"encryption": "plain", "emailAddress": "a..b@sandbox.test"}, 400, "dot"},
		{"two at signs", map[string]any{"encryption": "plain", "emailAddress": "a@b@sandbox.test"}, 400, "more than one @"},
		{"bad encryption", map[string]any{"encryption": "maybe"}, 400, "encryption must be"},
		{"encrypted without key", map[string]any{}, 400, "clientKemPk is required"},
		{"key not base64url", map[string]any{"clientKemPk": "abc+/="}, 400, "base64url"},
		{"key wrong size", map[string]any{"clientKemPk": crypto.EncodeBase64URL(make([]byte, 32))}, 400, "1184"},
		{"invalid JSON", "not json", 400, "JSON"},
		{"taken address", map[string]any{"encryption": "plain", "emailAddress": "TAKEN@sandbox.test"}, 409, "already exists"},
		{"taken key", map[string]any{"clientKemPk": pk}, 409, "clientKemPk already exists"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := &servertest.Client{T: t, Srv: a.Srv, Key: a.Key}
			a.ExpectError(c.status, "POST", "/api/inboxes", c.body, c.want)
		})
	}
	domainOnly := a.CreatePlain(map[string]any{"emailAddress": "LOCALHOST"})
	if !strings.HasSuffix(domainOnly.EmailAddress, "@localhost") || len(domainOnly.EmailAddress) < len("x@localhost") {
		t.Fatalf("domain-only address %q", domainOnly.EmailAddress)
	}
	if taken.EmailAddress != "taken@sandbox.test" {
		t.Fatalf("address %q", taken.EmailAddress)
	}
}

func TestEncryptionPolicies(t *testing.T) {
	keys, _ := crypto.GenerateKeyPair()
	pk := crypto.EncodeBase64URL(keys.PublicKey)
	cases := []struct {
		policy     string
		body       map[string]any
		status     int
		encrypted  bool
		wantInBody string
	}{
		{"always", map[string]any{"clientKemPk": pk}, 201, true, ""},
		{"always", map[string]any{"encryption": "plain"}, 400, false, "policy"},
		{"enabled", map[string]any{"encryption": "plain"}, 201, false, ""},
		{"disabled", map[string]any{}, 201, false, ""},
		{"disabled", map[string]any{"encryption": "encrypted", "clientKemPk": pk}, 201, true, ""},
		{"never", map[string]any{"clientKemPk": pk}, 201, false, ""},
		{"never", map[string]any{"encryption": "encrypted", "clientKemPk": pk}, 400, false, "policy"},
	}
	for _, c := range cases {
		t.Run(c.policy, func(t *testing.T) {
			_, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.EncryptionPolicy = c.policy })
			if c.status != 201 {
				a.ExpectError(c.status, "POST", "/api/inboxes", c.body, c.wantInBody)
				return
			}
			var in struct {
				Encrypted   bool
				ServerSigPk string
			}
			a.Expect(201, "POST", "/api/inboxes", c.body, &in)
			if in.Encrypted != c.encrypted || (in.ServerSigPk != "") != c.encrypted {
				t.Fatalf("policy %s body %v: encrypted %v serverSigPk %q", c.policy, c.body, in.Encrypted, in.ServerSigPk)
			}
		})
	}
}

func TestNotFoundAndBadRequests(t *testing.T) {
	_, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	a.ExpectError(404, "GET", "/api/inboxes/nobody@sandbox.test/emails", nil, "Inbox not found")
	a.ExpectError(404, "GET", "/api/inboxes/nobody@sandbox.test/sync", nil, "Inbox not found")
	a.ExpectError(404, "GET", "/api/inboxes/"+in.EmailAddress+"/emails/nope", nil, "Email not found")
	a.ExpectError(404, "GET", "/api/inboxes/"+in.EmailAddress+"/emails/nope/raw", nil, "Email not found")
	a.ExpectError(404, "PATCH", "/api/inboxes/"+in.EmailAddress+"/emails/nope/read", nil, "Email not found")
	a.ExpectError(404, "DELETE", "/api/inboxes/"+in.EmailAddress+"/emails/nope", nil, "Email not found")
	a.ExpectError(404, "GET", "/api/nothing-here", nil, "Cannot GET /api/nothing-here")
	a.ExpectError(400, "GET", "/api/inboxes/"+in.EmailAddress+"/emails?includeContent=perhaps", nil, "includeContent")
	a.ExpectError(400, "GET", "/api/events", nil, "inboxes is required")
	a.ExpectError(400, "GET", "/api/events?inboxes=", nil, "no inbox hash")
	a.ExpectError(404, "POST", "/api/test/emails", map[string]any{"to": "nobody@sandbox.test"}, "Inbox not found")
	a.ExpectError(400, "POST", "/api/test/emails", map[string]any{"to": in.EmailAddress, "spf": "great"}, "spf must be one of")
	a.ExpectError(400, "POST", "/api/test/emails", map[string]any{"to": in.EmailAddress, "auth": map[string]any{"reverseDns": "maybe"}}, "reverseDns")
	a.ExpectError(400, "POST", "/api/test/emails", map[string]any{}, "to is required")
}

func TestTestEmailEndpointNeedsDevSwitch(t *testing.T) {
	_, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.HTTP.Dev = false })
	in := a.CreatePlain(nil)
	a.ExpectError(404, "POST", "/api/test/emails", map[string]any{"to": in.EmailAddress}, "Cannot POST")
}
