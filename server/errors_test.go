package server_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"sandview/crypto"
	"sandview/server"
)

func TestAPIKeyIsRequired(t *testing.T) {
	srv, _ := startServer(t)
	for _, key := range []string{"", "wrong-key", "test-key-but-longer"} {
		a := &api{t: t, srv: srv, key: key}
		a.expectError(http.StatusUnauthorized, "GET", "/api/check-key", nil, "API")
		a.expectError(http.StatusUnauthorized, "GET", "/api/events?inboxes=x", nil, "API")
		a.expectError(http.StatusUnauthorized, "POST", "/api/inboxes", map[string]any{}, "API")
	}
	var ok struct{ OK bool }
	newAPI(t, srv).expect(http.StatusOK, "GET", "/api/check-key", nil, &ok)
	if !ok.OK {
		t.Fatal("check-key answered ok false")
	}
}

func TestCreateInboxValidation(t *testing.T) {
	_, a := startServer(t)
	taken := a.createPlain(map[string]any{"emailAddress": "taken@sandbox.test"})
	keys, _ := crypto.GenerateKeyPair()
	pk := crypto.EncodeBase64URL(keys.PublicKey)
	a.expect(http.StatusCreated, "POST", "/api/inboxes", map[string]any{"clientKemPk": pk}, nil)

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
			a := &api{t: t, srv: a.srv, key: a.key}
			a.expectError(c.status, "POST", "/api/inboxes", c.body, c.want)
		})
	}
	domainOnly := a.createPlain(map[string]any{"emailAddress": "LOCALHOST"})
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
			_, a := startServer(t, func(cfg *server.Config) { cfg.EncryptionPolicy = c.policy })
			if c.status != 201 {
				a.expectError(c.status, "POST", "/api/inboxes", c.body, c.wantInBody)
				return
			}
			var in struct {
				Encrypted   bool
				ServerSigPk string
			}
			a.expect(201, "POST", "/api/inboxes", c.body, &in)
			if in.Encrypted != c.encrypted || (in.ServerSigPk != "") != c.encrypted {
				t.Fatalf("policy %s body %v: encrypted %v serverSigPk %q", c.policy, c.body, in.Encrypted, in.ServerSigPk)
			}
		})
	}
}

func TestNotFoundAndBadRequests(t *testing.T) {
	_, a := startServer(t)
	in := a.createPlain(nil)
	a.expectError(404, "GET", "/api/inboxes/nobody@sandbox.test/emails", nil, "Inbox not found")
	a.expectError(404, "GET", "/api/inboxes/nobody@sandbox.test/sync", nil, "Inbox not found")
	a.expectError(404, "GET", "/api/inboxes/"+in.EmailAddress+"/emails/nope", nil, "Email not found")
	a.expectError(404, "GET", "/api/inboxes/"+in.EmailAddress+"/emails/nope/raw", nil, "Email not found")
	a.expectError(404, "PATCH", "/api/inboxes/"+in.EmailAddress+"/emails/nope/read", nil, "Email not found")
	a.expectError(404, "DELETE", "/api/inboxes/"+in.EmailAddress+"/emails/nope", nil, "Email not found")
	a.expectError(404, "GET", "/api/nothing-here", nil, "Cannot GET /api/nothing-here")
	a.expectError(400, "GET", "/api/inboxes/"+in.EmailAddress+"/emails?includeContent=perhaps", nil, "includeContent")
	a.expectError(400, "GET", "/api/events", nil, "inboxes is required")
	a.expectError(400, "GET", "/api/events?inboxes=", nil, "no inbox hash")
	a.expectError(404, "POST", "/api/test/emails", map[string]any{"to": "nobody@sandbox.test"}, "Inbox not found")
	a.expectError(400, "POST", "/api/test/emails", map[string]any{"to": in.EmailAddress, "spf": "great"}, "spf must be one of")
	a.expectError(400, "POST", "/api/test/emails", map[string]any{"to": in.EmailAddress, "auth": map[string]any{"reverseDns": "maybe"}}, "reverseDns")
	a.expectError(400, "POST", "/api/test/emails", map[string]any{}, "to is required")
}

func TestTestEmailEndpointNeedsDevSwitch(t *testing.T) {
	_, a := startServer(t, func(cfg *server.Config) { cfg.Dev = false })
	in := a.createPlain(nil)
	a.expectError(404, "POST", "/api/test/emails", map[string]any{"to": in.EmailAddress}, "Cannot POST")
}

func TestSMTPRejections(t *testing.T) {
	srv, a := startServer(t, func(cfg *server.Config) { cfg.MaxMessageBytes = 64 << 10 })
	in := a.createPlain(nil)
	cases := []struct {
		name string
		to   string
		msg  []byte
		code int
	}{
		{"unknown inbox", "nobody@sandbox.test", simpleMessage("x", "x"), 550},
		{"unknown domain", "someone@example.com", simpleMessage("x", "x"), 550},
		{"too large", in.EmailAddress, append(simpleMessage(in.EmailAddress, "big"), bytes.Repeat([]byte("0123456789abcdef\r\n"), 5000)...), 552},
		{"header too large", in.EmailAddress, bytes.Repeat([]byte("X-Filler: y\r\n"), 2500), 552},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := sendMail(srv.SMTPAddr(), "sender@example.org", []string{c.to}, c.msg)
			if smtpCode(err) != c.code {
				t.Fatalf("error %v, want SMTP %d", err, c.code)
			}
		})
	}
	if n := a.sync(in.EmailAddress).EmailCount; n != 0 {
		t.Fatalf("rejected mail was stored: %d emails", n)
	}
	// The connection survives a rejected recipient and delivers to the good one.
	if err := sendMail(srv.SMTPAddr(), "s@example.org", []string{in.EmailAddress}, simpleMessage(in.EmailAddress, "ok")); err != nil {
		t.Fatal(err)
	}
	a.waitForCount(in.EmailAddress, 1)
}
