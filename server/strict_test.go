package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"

	"sandview/model"
	"sandview/server"
)

// bodyRoute is a route that takes a JSON body, with a body it accepts and
// one of that body's string properties.
type bodyRoute struct {
	method, path string
	valid        map[string]any
	stringProp   string
}

// bodyRoutes are every route of the server that takes a JSON body.
func bodyRoutes(address, globalHook, inboxHook string) []bodyRoute {
	hook := map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{model.EventEmailReceived}}
	return []bodyRoute{
		{"POST", "/api/inboxes", map[string]any{"encryption": "plain"}, "encryption"},
		{"POST", "/api/test/emails", map[string]any{"to": address}, "to"},
		{"POST", "/api/webhooks", hook, "url"},
		{"PATCH", "/api/webhooks/" + globalHook, map[string]any{"description": "patched"}, "description"},
		{"POST", "/api/inboxes/" + address + "/webhooks", hook, "url"},
		{"PATCH", "/api/inboxes/" + address + "/webhooks/" + inboxHook, map[string]any{"description": "patched"}, "description"},
	}
}

// with returns a copy of m with the entries of extra.
func with(m map[string]any, extra map[string]any) map[string]any {
	out := maps.Clone(m)
	maps.Copy(out, extra)
	return out
}

// rawRequest sends body as it is and returns the status and the error
// message.
func rawRequest(a *api, method, path, body string) (int, string) {
	a.T.Helper()
	req, err := http.NewRequest(method, a.Srv.URL()+path, strings.NewReader(body))
	if err != nil {
		a.T.Fatal(err)
	}
	req.Header.Set("X-API-Key", a.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.T.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		a.T.Fatal(err)
	}
	var e model.ErrorBody
	_ = json.NewDecoder(bytes.NewReader(data)).Decode(&e)
	return resp.StatusCode, e.Message.String()
}

// TestEveryBodyRefusesWhatTheContractDoesNotName: in every profile, on
// every route that takes a body, a property the contract does not name (at
// any depth, in any letter case), a value of the wrong type and text that
// is not JSON answer 400 naming the problem, and change nothing.
func TestEveryBodyRefusesWhatTheContractDoesNotName(t *testing.T) {
	inEveryProfile(t, func(t *testing.T, _ server.Compat, _ *server.Server, a *api, in model.Inbox) {
		var global, inboxHook model.Webhook
		a.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{URL: "http://127.0.0.1:9/g", Events: []string{model.EventEmailReceived}, Description: "kept"}, &global)
		a.Expect(http.StatusCreated, "POST", "/api/inboxes/"+in.EmailAddress+"/webhooks", model.CreateWebhookRequest{URL: "http://127.0.0.1:9/i", Events: []string{model.EventEmailReceived}, Description: "kept"}, &inboxHook)

		for _, r := range bodyRoutes(in.EmailAddress, global.ID, inboxHook.ID) {
			cased := strings.ToUpper(r.stringProp[:1]) + r.stringProp[1:]
			for _, c := range []struct {
				body any
				want string
			}{
				{with(r.valid, map[string]any{"colour": "red"}), "property colour should not exist (allowed here: "},
				{with(r.valid, map[string]any{cased: "x"}), "property " + cased + " should not exist"},
				{with(r.valid, map[string]any{r.stringProp: 7}), "field " + r.stringProp + " must be a string, got number"},
				{[]any{r.valid}, "request body must be an object, got JSON array"},
			} {
				a.ExpectError(http.StatusBadRequest, r.method, r.path, c.body, c.want)
			}
			for _, raw := range []string{`{"to":`, `{} {}`, `{"` + r.stringProp + `": "a", "` + r.stringProp + `": "b"}`} {
				status, msg := rawRequest(a, r.method, r.path, raw)
				if status != http.StatusBadRequest || !strings.Contains(msg, "not valid JSON") && !strings.Contains(msg, "more than once") {
					t.Errorf("%s %s %s: %d %q, want 400 naming the problem", r.method, r.path, raw, status, msg)
				}
			}
		}

		nested := []struct {
			body map[string]any
			want string
		}{
			// The official Go SDK's body for a custom template.
			{map[string]any{"customTemplate": map[string]any{"body": "{}", "contentType": "application/json"}}, "property customTemplate should not exist"},
			{map[string]any{"template": map[string]any{"type": "custom", "body": "{}", "colour": 1}}, "property template.colour should not exist (allowed here: type, body, contentType)"},
			{map[string]any{"template": map[string]any{"type": "custom", "body": 5}}, "field template.body must be a string, got number"},
			{map[string]any{"template": 5}, "field template must be a template name or an object, got 5"},
			{map[string]any{"filter": map[string]any{"mode": "all", "rules": []any{}, "colour": 1}}, "property filter.colour should not exist (allowed here: mode, rules, requireAuth)"},
			{map[string]any{"filter": map[string]any{"mode": "all", "rules": []any{
				map[string]any{"field": "subject", "operator": "contains", "value": "a"},
				map[string]any{"field": "subject", "operator": "contains", "value": "b", "colour": 1},
			}}}, "property filter.rules[1].colour should not exist (allowed here: field, operator, value, caseSensitive)"},
			{map[string]any{"filter": map[string]any{"mode": "all", "rules": []any{map[string]any{"field": "subject", "operator": "contains", "value": 5}}}}, "field filter.rules.value must be a string, got number"},
			{map[string]any{"filter": []any{}}, "field filter must be an object, got array"},
		}
		for _, r := range bodyRoutes(in.EmailAddress, global.ID, inboxHook.ID)[2:] {
			for _, c := range nested {
				a.ExpectError(http.StatusBadRequest, r.method, r.path, with(r.valid, c.body), c.want)
			}
		}
		a.ExpectError(http.StatusBadRequest, "POST", "/api/test/emails", map[string]any{"to": in.EmailAddress, "auth": map[string]any{"spf": "pass", "colour": 1}},
			"property auth.colour should not exist (allowed here: spf, dkim, dmarc, reverseDns)")
		a.ExpectError(http.StatusBadRequest, "POST", "/api/test/emails", map[string]any{"to": in.EmailAddress, "auth": "pass"}, "field auth must be an object, got string")

		// Nothing was created, stored or changed.
		var list model.WebhookList
		a.Expect(http.StatusOK, "GET", "/api/webhooks", nil, &list)
		if list.Total != 1 || list.Webhooks[0].Description != "kept" || list.Webhooks[0].Template != nil || list.Webhooks[0].Filter != nil {
			t.Errorf("refused requests changed the global webhooks: %+v", list)
		}
		a.Expect(http.StatusOK, "GET", "/api/inboxes/"+in.EmailAddress+"/webhooks", nil, &list)
		if list.Total != 1 || list.Webhooks[0].Description != "kept" {
			t.Errorf("refused requests changed the inbox webhooks: %+v", list)
		}
		if n := a.Sync(in.EmailAddress).EmailCount; n != 0 {
			t.Errorf("refused test emails stored %d emails", n)
		}
	})
}

// TestStrictBodiesStillTakeEveryContractForm: the strict decoding accepts
// every form the contract names: templates by name and as objects, filters,
// and null to remove them.
func TestStrictBodiesStillTakeEveryContractForm(t *testing.T) {
	inEveryProfile(t, func(t *testing.T, _ server.Compat, _ *server.Server, a *api, _ model.Inbox) {
		custom := map[string]any{"type": "custom", "body": `{"s": "{{data.subject}}"}`, "contentType": "application/json"}
		filter := map[string]any{"mode": "any", "requireAuth": true, "rules": []any{
			map[string]any{"field": "subject", "operator": "regex", "value": "^\\[ALERT\\]", "caseSensitive": true},
		}}
		var hook model.Webhook
		a.Expect(http.StatusCreated, "POST", "/api/webhooks", map[string]any{
			"url": "http://127.0.0.1:9/h", "events": []string{model.EventEmailReceived}, "template": custom, "filter": filter, "description": "d",
		}, &hook)
		if hook.Template == nil || hook.Template.Body != custom["body"] || hook.Filter == nil || !hook.Filter.Rules[0].CaseSensitive || !*hook.Filter.RequireAuth {
			t.Fatalf("created %+v", hook)
		}
		path := "/api/webhooks/" + hook.ID
		patch := func(body map[string]any) model.Webhook {
			var patched model.Webhook // fresh: an answer omits what the webhook lacks
			a.Expect(http.StatusOK, "PATCH", path, body, &patched)
			return patched
		}
		if got := patch(map[string]any{"template": "slack", "filter": nil}); got.Template == nil || got.Template.Type != model.TemplateSlack || got.Filter != nil {
			t.Fatalf("patched %+v", got)
		}
		if got := patch(map[string]any{"template": nil, "filter": filter, "enabled": false}); got.Template != nil || got.Filter == nil || got.Enabled {
			t.Fatalf("patched %+v", got)
		}
		if got := patch(map[string]any{"template": map[string]any{"type": "discord"}}); got.Template == nil || got.Template.Type != model.TemplateDiscord || got.Filter == nil {
			t.Fatalf("patched %+v", got)
		}
	})
}
