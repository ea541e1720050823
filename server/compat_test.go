package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"sandview/model"
	"sandview/server"
	"sandview/server/core"
	"sandview/server/servertest"
)

// inEveryProfile runs fn as a subtest per wire profile, each against a
// server of its own (webhooks may point at loopback) with a plain inbox.
func inEveryProfile(t *testing.T, fn func(t *testing.T, p server.Compat, srv *server.Server, a *api, in model.Inbox)) {
	for _, p := range []server.Compat{server.CompatContract, server.CompatReference} {
		t.Run(string(p), func(t *testing.T) {
			srv, a := servertest.StartAPI(t, loopbackWebhooks, func(cfg *server.Config) { cfg.Compat = p })
			fn(t, p, srv, a, a.CreatePlain(nil))
		})
	}
}

func TestParseCompat(t *testing.T) {
	for in, want := range map[string]server.Compat{
		"":            server.CompatContract,
		"contract":    server.CompatContract,
		" Reference ": server.CompatReference,
		"reference":   server.CompatReference,
	} {
		got, err := server.ParseCompat(in)
		if err != nil || got != want {
			t.Errorf("ParseCompat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := server.ParseCompat("gateway")
	if err == nil || !strings.Contains(err.Error(), `"gateway"`) || !strings.Contains(err.Error(), "contract") || !strings.Contains(err.Error(), "reference") {
		t.Fatalf("ParseCompat(gateway) error %v, want one naming the value and both profiles", err)
	}
	srv, err := server.Start(context.Background(), server.Config{
		HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Compat: "gateway", Options: core.Options{APIKey: servertest.APIKey},
	})
	if err == nil {
		srv.Close()
		t.Fatal("a server started with an unknown wire profile")
	}
	if !strings.Contains(err.Error(), `"gateway"`) {
		t.Fatalf("start error %v does not name the profile", err)
	}
}

// TestTestEmailFormsInEveryProfile: POST /api/test/emails answers 201 and
// takes the auth results at the top level (the contract) or nested under
// auth (the deployments and the official SDKs), reverseDns as a boolean or
// a result string, in every profile.
func TestTestEmailFormsInEveryProfile(t *testing.T) {
	type results struct{ spf, dkim, dmarc, reverseDNS string }
	cases := []struct {
		name string
		body map[string]any
		want results
	}{
		{"top level, reverseDns boolean", map[string]any{"spf": "softfail", "dkim": "fail", "dmarc": "none", "reverseDns": false},
			results{"softfail", "fail", "none", "fail"}},
		{"top level, reverseDns result", map[string]any{"reverseDns": "none"}, results{"pass", "pass", "pass", "none"}},
		{"nested, reverseDns true (official Node SDK)", map[string]any{"auth": map[string]any{"spf": "fail", "reverseDns": true}},
			results{"fail", "pass", "pass", "pass"}},
		{"nested, reverseDns false (official Go SDK)", map[string]any{"auth": map[string]any{"dmarc": "fail", "reverseDns": false}},
			results{"pass", "pass", "fail", "fail"}},
		{"nested, reverseDns result (reference deployment)", map[string]any{"auth": map[string]any{"spf": "permerror", "dkim": "none", "dmarc": "pass", "reverseDns": "none"}},
			results{"permerror", "none", "pass", "none"}},
		{"nothing chosen", map[string]any{}, results{"pass", "pass", "pass", "pass"}},
		{"auth null", map[string]any{"auth": nil, "spf": "neutral"}, results{"neutral", "pass", "pass", "pass"}},
		{"empty auth", map[string]any{"auth": map[string]any{}}, results{"pass", "pass", "pass", "pass"}},
	}
	inEveryProfile(t, func(t *testing.T, _ server.Compat, _ *server.Server, a *api, in model.Inbox) {
		for _, tc := range cases {
			tc.body["to"] = in.EmailAddress
			tc.body["subject"] = tc.name
			var created model.TestEmailResponse
			a.Expect(http.StatusCreated, "POST", "/api/test/emails", tc.body, &created)
			meta, parsed := servertest.DecodePlain(t, a.Email(in.EmailAddress, created.EmailID))
			auth := parsed.AuthResults
			got := results{auth.SPF.Result, auth.DKIM[0].Result, auth.DMARC.Result, auth.ReverseDNS.Result}
			if meta.Subject != tc.name || got != tc.want {
				t.Errorf("%s: subject %q, results %+v; want %+v", tc.name, meta.Subject, got, tc.want)
			}
		}
	})
}

// TestTestEmailRefusals: a body mixing both forms, or choosing a result the
// endpoint does not offer, answers 400 naming the problem and stores
// nothing.
func TestTestEmailRefusals(t *testing.T) {
	cases := []struct {
		name string
		body map[string]any
		want string
	}{
		{"both forms", map[string]any{"spf": "fail", "auth": map[string]any{"dkim": "fail"}}, "given both at the top level (spf, dkim, dmarc, reverseDns"},
		{"both forms, reverseDns only", map[string]any{"reverseDns": true, "auth": map[string]any{"reverseDns": true}}, "use one form"},
		{"reverseDns a number", map[string]any{"reverseDns": 5}, "reverseDns must be a boolean or one of pass, fail, none, got 5"},
		{"nested reverseDns unknown", map[string]any{"auth": map[string]any{"reverseDns": "maybe"}}, `auth.reverseDns must be one of pass, fail, none, got "maybe"`},
		{"nested spf skipped", map[string]any{"auth": map[string]any{"spf": "skipped"}}, `auth.spf must be one of pass, fail, softfail, neutral, none, temperror, permerror, got "skipped"`},
		{"top-level dkim empty", map[string]any{"dkim": ""}, `dkim must be one of pass, fail, none, got ""`},
	}
	inEveryProfile(t, func(t *testing.T, _ server.Compat, _ *server.Server, a *api, in model.Inbox) {
		for _, tc := range cases {
			tc.body["to"] = in.EmailAddress
			a.ExpectError(http.StatusBadRequest, "POST", "/api/test/emails", tc.body, tc.want)
		}
		if n := a.Sync(in.EmailAddress).EmailCount; n != 0 {
			t.Fatalf("refused test emails stored %d emails", n)
		}
	})
}
