package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"sandview/crypto"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// rawJSON decodes base64 JSON into a generic value, to see its shapes.
func rawJSON(t *testing.T, b64 string) map[string]any {
	t.Helper()
	var v map[string]any
	servertest.DecodeB64JSON(t, b64, &v)
	return v
}

// TestMetadataToInEveryProfile: the contract's metadata `to` is an array
// of the To header's recipients (empty when the header names none), and
// its envelope holds MAIL FROM and the recipient; the reference profile's
// `to` is one string, the envelope recipient, as the official SDKs decode
// it, and it has no envelope, as the reference service.
func TestMetadataToInEveryProfile(t *testing.T) {
	inEveryProfile(t, func(t *testing.T, p server.Compat, srv *server.Server, a *api, in model.Inbox) {
		withTo := []byte("From: a@example.org\r\nTo: Team <team@example.org>\r\nSubject: to the team\r\n\r\nhi\r\n")
		bcc := []byte("From: a@example.org\r\nSubject: bcc\r\n\r\nhi\r\n")
		servertest.MustSend(t, srv, in.EmailAddress, withTo)
		servertest.MustSend(t, srv, in.EmailAddress, bcc)
		got, envelopes := map[string]any{}, map[string]any{}
		for _, rec := range a.Emails(in.EmailAddress, false) {
			meta := rawJSON(t, rec.Metadata)
			got[meta["subject"].(string)] = meta["to"]
			envelopes[meta["subject"].(string)] = meta["envelope"]
		}
		want := map[string]any{"to the team": []any{`"Team" <team@example.org>`}, "bcc": []any{}}
		envelope := map[string]any{"from": "sender@example.org", "to": []any{in.EmailAddress}}
		wantEnvelopes := map[string]any{"to the team": envelope, "bcc": envelope}
		if p == server.CompatReference {
			want = map[string]any{"to the team": in.EmailAddress, "bcc": in.EmailAddress}
			wantEnvelopes = map[string]any{"to the team": nil, "bcc": nil}
		}
		for subject, env := range wantEnvelopes {
			if gotJSON, wantJSON := mustJSON(t, envelopes[subject]), mustJSON(t, env); gotJSON != wantJSON {
				t.Errorf("%s: metadata envelope %s, want %s", subject, gotJSON, wantJSON)
			}
		}
		for subject, to := range want {
			if gotJSON, wantJSON := mustJSON(t, got[subject]), mustJSON(t, to); gotJSON != wantJSON {
				t.Errorf("%s: metadata to %s, want %s", subject, gotJSON, wantJSON)
			}
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestReverseDNSVerifiedInEveryProfile: parsed authResults.reverseDns has
// a boolean verified beside result (older SDKs read only verified).
func TestReverseDNSVerifiedInEveryProfile(t *testing.T) {
	inEveryProfile(t, func(t *testing.T, _ server.Compat, _ *server.Server, a *api, in model.Inbox) {
		for _, c := range []struct {
			reverseDNS string
			verified   bool
		}{{"pass", true}, {"fail", false}, {"none", false}} {
			var created model.TestEmailResponse
			a.Expect(http.StatusCreated, "POST", "/api/test/emails", map[string]any{"to": in.EmailAddress, "auth": map[string]any{"reverseDns": c.reverseDNS}}, &created)
			parsed := rawJSON(t, a.Email(in.EmailAddress, created.EmailID).Parsed)
			rdns, _ := parsed["authResults"].(map[string]any)["reverseDns"].(map[string]any)
			if rdns["result"] != c.reverseDNS || rdns["verified"] != c.verified {
				t.Errorf("reverseDns %s: %v, want result %s and verified %v", c.reverseDNS, rdns, c.reverseDNS, c.verified)
			}
		}
	})
}

// TestEncryptionContextPerProfile: the reference profile's default context
// is the one the official SDKs hard-code; an explicit one still wins.
func TestEncryptionContextPerProfile(t *testing.T) {
	for _, c := range []struct {
		compat  server.Compat
		context string
		want    string
	}{
		{server.CompatContract, "", crypto.DefaultContext},
		{server.CompatReference, "", "vaultsandbox:email:v1"},
		{server.CompatReference, "acme:email:v1", "acme:email:v1"},
	} {
		_, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.Compat, cfg.EncryptionContext = c.compat, c.context })
		var info model.ServerInfo
		a.Expect(http.StatusOK, "GET", "/api/server-info", nil, &info)
		if info.Context != c.want {
			t.Errorf("%s with context %q: server-info context %q, want %q", c.compat, c.context, info.Context, c.want)
		}
	}
}

// TestCreateInboxPropertiesOfTheSDKs: the reference profile takes the
// create-inbox properties the official SDKs send where the server can
// honour them and refuses the others by name; the contract profile
// refuses them as unknown.
func TestCreateInboxPropertiesOfTheSDKs(t *testing.T) {
	_, contract := servertest.StartAPI(t)
	contract.ExpectError(http.StatusBadRequest, "POST", "/api/inboxes", map[string]any{"encryption": "plain", "persistence": "ephemeral"}, "property persistence should not exist")
	contract.ExpectError(http.StatusBadRequest, "POST", "/api/inboxes", map[string]any{"encryption": "plain", "spamAnalysis": false}, "property spamAnalysis should not exist")

	reference := func(cfg *server.Config) { cfg.Compat = server.CompatReference }
	_, memory := servertest.StartAPI(t, reference)
	_, durable := servertest.StartAPI(t, reference, func(cfg *server.Config) { cfg.DataDir = t.TempDir() })
	for _, c := range []struct {
		name   string
		a      *api
		body   map[string]any
		status int
		want   string // persistent in the answer, or a part of the error
	}{
		{"ephemeral in memory", memory, map[string]any{"persistence": "ephemeral", "spamAnalysis": false}, 201, "false"},
		{"ephemeral with a data directory", durable, map[string]any{"persistence": "ephemeral"}, 201, "true"},
		{"persistent with a data directory", durable, map[string]any{"persistence": "persistent"}, 201, "true"},
		{"nothing asked", memory, map[string]any{}, 201, "false"},
		{"persistent in memory", memory, map[string]any{"persistence": "persistent"}, 400, `persistence "persistent" is not available`},
		{"an unknown persistence", durable, map[string]any{"persistence": "forever"}, 400, `persistence must be "persistent" or "ephemeral", got "forever"`},
		{"spam analysis", memory, map[string]any{"spamAnalysis": true}, 400, "spamAnalysis true is not supported"},
		{"a wrong type is named", memory, map[string]any{"encryption": 1}, 400, "field encryption must be a string, got number"},
		{"still strict", memory, map[string]any{"mood": map[string]any{}}, 400, "property mood should not exist"},
		{"chaos is validated", memory, map[string]any{"chaos": map[string]any{}}, 400, "chaos.enabled must be a boolean value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.body["encryption"] == nil {
				c.body["encryption"] = "plain"
			}
			if c.status != http.StatusCreated {
				c.a.ExpectError(c.status, "POST", "/api/inboxes", c.body, c.want)
				return
			}
			var resp struct {
				model.Inbox
				Persistent *bool `json:"persistent"`
			}
			c.a.Expect(http.StatusCreated, "POST", "/api/inboxes", c.body, &resp)
			if resp.EmailAddress == "" || resp.Persistent == nil || mustJSON(t, *resp.Persistent) != c.want {
				t.Fatalf("answer %+v, want an inbox with persistent %s", resp, c.want)
			}
		})
	}
}
