package webhook

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"sandview/model"
)

func TestRoutesErrors(t *testing.T) {
	cfg := testConfig()
	cfg.AllowHTTP = false
	cfg.AllowLoopbackHTTP = true
	cfg.MaxGlobal = 2
	cfg.MaxPerInbox = 1
	h := newHarness(t, cfg)
	good := func() map[string]any {
		return map[string]any{"url": "https://hooks.example.org/x", "events": []string{"email.received"}}
	}
	with := func(k string, v any) map[string]any {
		m := good()
		m[k] = v
		return m
	}
	tests := []struct {
		name   string
		body   any
		status int
	}{
		{"empty body", "", http.StatusBadRequest},
		{"not JSON", "{", http.StatusBadRequest},
		{"wrong type", `{"url": 5, "events": ["email.received"]}`, http.StatusBadRequest},
		{"no url", with("url", ""), http.StatusBadRequest},
		{"relative url", with("url", "/hook"), http.StatusBadRequest},
		{"ftp url", with("url", "ftp://example.org/x"), http.StatusBadRequest},
		{"http remote", with("url", "http://hooks.example.org/x"), http.StatusBadRequest},
		{"url too long", with("url", "https://example.org/"+strings.Repeat("a", 2048)), http.StatusBadRequest},
		{"no events", with("events", []string{}), http.StatusBadRequest},
		{"unknown event", with("events", []string{"email.bounced"}), http.StatusBadRequest},
		{"too many events", with("events", slices.Repeat([]string{"email.received"}, 11)), http.StatusBadRequest},
		{"description too long", with("description", strings.Repeat("d", 501)), http.StatusBadRequest},
		{"bad filter mode", with("filter", map[string]any{"mode": "x", "rules": []any{}}), http.StatusBadRequest},
		{"bad regex", with("filter", map[string]any{"mode": "all", "rules": []any{map[string]any{"field": "subject", "operator": "regex", "value": "(["}}}), http.StatusUnprocessableEntity},
		{"unknown template", with("template", "markdown"), http.StatusUnprocessableEntity},
		{"custom not JSON", with("template", map[string]any{"type": "custom", "body": "{{data.subject}"}), http.StatusUnprocessableEntity},
		{"custom too long", with("template", map[string]any{"type": "custom", "body": `"` + strings.Repeat("x", 10000) + `"`}), http.StatusUnprocessableEntity},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body model.ErrorBody
			status := h.call(http.MethodPost, "/api/webhooks", tc.body, &body)
			if status != tc.status {
				t.Fatalf("status %d, want %d (%v)", status, tc.status, body.Message)
			}
			if body.StatusCode != tc.status || body.Error != http.StatusText(tc.status) || body.Message.String() == "" {
				t.Errorf("error body %+v", body)
			}
		})
	}

	// Loopback http is allowed with AllowLoopbackHTTP.
	for _, u := range []string{"http://127.0.0.1:9/x", "http://localhost:9/x", "http://[::1]:9/x"} {
		h.create("/api/inboxes/other@sandbox.test/webhooks", model.CreateWebhookRequest{URL: u, Events: []string{"email.received"}})
		var list model.WebhookList
		h.call(http.MethodGet, "/api/inboxes/other@sandbox.test/webhooks", nil, &list)
		h.call(http.MethodDelete, "/api/inboxes/other@sandbox.test/webhooks/"+list.Webhooks[0].ID, nil, nil)
	}

	// 409 at the limits.
	h.create("/api/webhooks", model.CreateWebhookRequest{URL: "https://a.example/1", Events: []string{"email.received"}})
	h.create("/api/webhooks", model.CreateWebhookRequest{URL: "https://a.example/2", Events: []string{"email.received"}})
	if status := h.call(http.MethodPost, "/api/webhooks", good(), nil); status != http.StatusConflict {
		t.Errorf("third global webhook: %d, want 409", status)
	}
	inboxHook := h.create("/api/inboxes/qa@sandbox.test/webhooks", model.CreateWebhookRequest{URL: "https://a.example/3", Events: []string{"email.received"}})
	if status := h.call(http.MethodPost, "/api/inboxes/QA@sandbox.test/webhooks", good(), nil); status != http.StatusConflict {
		t.Errorf("second inbox webhook: %d, want 409", status)
	}
	if inboxHook.Scope != "inbox" || inboxHook.InboxEmail != "qa@sandbox.test" || inboxHook.InboxHash != "hash-qa" {
		t.Errorf("inbox webhook %+v", inboxHook)
	}

	// 404s.
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/api/webhooks/whk_missing"},
		{http.MethodPatch, "/api/webhooks/whk_missing"},
		{http.MethodDelete, "/api/webhooks/whk_missing"},
		{http.MethodPost, "/api/webhooks/whk_missing/test"},
		{http.MethodPost, "/api/webhooks/whk_missing/rotate-secret"},
		{http.MethodGet, "/api/webhooks/" + inboxHook.ID},                                // inbox webhook on a global route
		{http.MethodGet, "/api/inboxes/other@sandbox.test/webhooks/" + inboxHook.ID},     // other inbox
		{http.MethodGet, "/api/inboxes/nobody@sandbox.test/webhooks"},                    // unknown inbox
		{http.MethodPost, "/api/inboxes/nobody@sandbox.test/webhooks"},                   // unknown inbox
		{http.MethodDelete, "/api/inboxes/nobody@sandbox.test/webhooks/" + inboxHook.ID}, // unknown inbox
	} {
		var body model.ErrorBody
		var req any
		if c.method == http.MethodPatch || c.method == http.MethodPost && strings.HasSuffix(c.path, "webhooks") {
			req = good()
		}
		if status := h.call(c.method, c.path, req, &body); status != http.StatusNotFound || body.StatusCode != 404 {
			t.Errorf("%s %s: %d %+v, want 404", c.method, c.path, status, body)
		}
	}

	// PATCH validation.
	path := "/api/inboxes/qa@sandbox.test/webhooks/" + inboxHook.ID
	for _, c := range []struct {
		body   string
		status int
	}{
		{`{"url": "http://remote.example/x"}`, http.StatusBadRequest},
		{`{"events": []}`, http.StatusBadRequest},
		{`{"enabled": "yes"}`, http.StatusBadRequest},
		{`{"filter": {"mode": "all", "rules": [{"field": "subject", "operator": "regex", "value": "+"}]}}`, http.StatusUnprocessableEntity},
		{`{"template": {"type": "custom", "body": "not json"}}`, http.StatusUnprocessableEntity},
		{`not json`, http.StatusBadRequest},
	} {
		if status := h.call(http.MethodPatch, path, c.body, nil); status != c.status {
			t.Errorf("PATCH %s: %d, want %d", c.body, status, c.status)
		}
	}
	// Nothing changed by the refused updates.
	if got := h.get(path); got.URL != "https://a.example/3" || got.Filter != nil || got.Template != nil {
		t.Errorf("refused PATCH changed the webhook: %+v", got)
	}
	// Unauthorized requests are the guard's business.
	req, _ := http.NewRequest(http.MethodGet, h.api.URL+"/api/webhooks", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no API key: %d", resp.StatusCode)
	}
}

func TestRoutesLifecycle(t *testing.T) {
	h := newHarness(t, testConfig())
	created := h.create("/api/webhooks", model.CreateWebhookRequest{
		URL: "https://hooks.example.org/a", Events: []string{"email.received", "email.received", "email.deleted"},
		Template:    &model.WebhookTemplate{Type: "slack"},
		Filter:      &model.FilterConfig{Mode: "any", Rules: []model.FilterRule{{Field: "header.X-Priority", Operator: "exists"}}},
		Description: "orders",
	})
	if created.Secret == "" || created.Stats != nil || created.Scope != "global" || !created.Enabled {
		t.Errorf("create answer %+v", created)
	}
	if len(created.Events) != 2 || created.Template == nil || created.Template.Type != "slack" {
		t.Errorf("create answer events/template: %+v", created)
	}
	if created.Filter == nil || created.Filter.RequireAuth == nil || *created.Filter.RequireAuth {
		t.Errorf("effective requireAuth not shown: %+v", created.Filter)
	}
	second := h.create("/api/webhooks", model.CreateWebhookRequest{URL: "https://hooks.example.org/b", Events: []string{"email.stored"}})

	// The raw list has no secrets and no stats.
	req, _ := http.NewRequest(http.MethodGet, h.api.URL+"/api/webhooks", nil)
	req.Header.Set("X-API-Key", "test-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Webhooks []map[string]json.RawMessage `json:"webhooks"`
		Total    int                          `json:"total"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if raw.Total != 2 || len(raw.Webhooks) != 2 {
		t.Fatalf("list %+v", raw)
	}
	for _, w := range raw.Webhooks {
		if _, ok := w["secret"]; ok {
			t.Error("list shows a secret")
		}
		if _, ok := w["stats"]; ok {
			t.Error("list shows stats")
		}
	}
	if string(raw.Webhooks[0]["id"]) != `"`+created.ID+`"` || string(raw.Webhooks[0]["template"]) != `"slack"` {
		t.Errorf("list order or template form: %s %s", raw.Webhooks[0]["id"], raw.Webhooks[0]["template"])
	}

	got := h.get("/api/webhooks/" + created.ID)
	if got.Secret != created.Secret || got.Stats == nil {
		t.Errorf("get %+v", got)
	}

	// PATCH: change fields; null removes template and filter.
	newURL, desc, off := "https://hooks.example.org/c", "", false
	var patched model.Webhook
	status := h.call(http.MethodPatch, "/api/webhooks/"+created.ID, model.UpdateWebhookRequest{
		URL: &newURL, Events: []string{"email.stored"}, Description: &desc, Enabled: &off,
		Template: model.Null[model.WebhookTemplate](), Filter: model.Null[model.FilterConfig](),
	}, &patched)
	if status != http.StatusOK || patched.URL != newURL || patched.Enabled || patched.Template != nil || patched.Filter != nil ||
		patched.Description != "" || len(patched.Events) != 1 || patched.UpdatedAt == nil || patched.Secret != "" {
		t.Errorf("patch %d %+v", status, patched)
	}
	custom := model.WebhookTemplate{Type: "custom", Body: `{"s":"{{data.subject}}"}`, ContentType: "text/plain"}
	status = h.call(http.MethodPatch, "/api/webhooks/"+created.ID, model.UpdateWebhookRequest{Template: model.Some(custom)}, &patched)
	if status != http.StatusOK || patched.Template == nil || patched.Template.Body != custom.Body || patched.URL != newURL {
		t.Errorf("patch template %d %+v", status, patched)
	}

	var templates model.WebhookTemplates
	h.call(http.MethodGet, "/api/webhooks/templates", nil, &templates)
	var names []string
	for _, o := range templates.Templates {
		if o.Label == "" {
			t.Errorf("template %s has no label", o.Value)
		}
		names = append(names, o.Value)
	}
	if strings.Join(names, ",") != strings.Join(model.BuiltinTemplates(), ",") {
		t.Errorf("templates %v", names)
	}

	h.create("/api/inboxes/qa@sandbox.test/webhooks", model.CreateWebhookRequest{URL: "https://hooks.example.org/i", Events: []string{"email.received"}})
	var m model.WebhookMetrics
	h.call(http.MethodGet, "/api/webhooks/metrics", nil, &m)
	if m.Webhooks.Global != 2 || m.Webhooks.Inbox != 1 || m.Webhooks.Total != 3 || m.Webhooks.Enabled != 2 {
		t.Errorf("metrics %+v", m.Webhooks)
	}

	if status := h.call(http.MethodDelete, "/api/webhooks/"+second.ID, nil, nil); status != http.StatusNoContent {
		t.Errorf("delete: %d", status)
	}
	if status := h.call(http.MethodGet, "/api/webhooks/"+second.ID, nil, nil); status != http.StatusNotFound {
		t.Errorf("get after delete: %d", status)
	}
}

// TestEmptyBodyIsTheEmptyObject: the routes read an empty body as {}, so
// create names its first missing field and update changes nothing.
func TestEmptyBodyIsTheEmptyObject(t *testing.T) {
	h := newHarness(t, testConfig())
	var refused model.ErrorBody
	if status := h.call(http.MethodPost, "/api/webhooks", "", &refused); status != http.StatusBadRequest || !strings.Contains(refused.Message.String(), "url is required") {
		t.Fatalf("create with an empty body: %d %+v, want 400 naming url", status, refused)
	}
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: "https://hooks.example.org/e", Events: []string{model.EventEmailStored}})
	var patched model.Webhook
	if status := h.call(http.MethodPatch, "/api/webhooks/"+wh.ID, "", &patched); status != http.StatusOK {
		t.Fatalf("update with an empty body: %d, want 200", status)
	}
	if patched.URL != wh.URL || !slices.Equal(patched.Events, wh.Events) || !patched.Enabled || patched.Description != wh.Description {
		t.Errorf("an empty update changed the webhook: %+v, was %+v", patched, wh)
	}
}

// TestHTTPRefusalNamesFlagAndVariable: an http:// URL is refused naming
// both ways to allow it, the flag and the variable.
func TestHTTPRefusalNamesFlagAndVariable(t *testing.T) {
	cfg := testConfig()
	cfg.AllowHTTP = false
	h := newHarness(t, cfg)
	var body model.ErrorBody
	status := h.call(http.MethodPost, "/api/webhooks", model.CreateWebhookRequest{URL: "http://hooks.example.org/x", Events: []string{model.EventEmailReceived}}, &body)
	if want := "--webhook-allow-http (SVC_WEBHOOK_ALLOW_HTTP=true)"; status != http.StatusBadRequest || !strings.Contains(body.Message.String(), want) {
		t.Errorf("status %d, %q; want 400 naming %s", status, body.Message, want)
	}
}
