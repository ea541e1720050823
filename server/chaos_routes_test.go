package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// withChaos turns the chaos switch on.
func withChaos(cfg *server.Config) { cfg.Chaos = true }

// chaosPath is the chaos route of an inbox.
func chaosPath(address string) string { return "/api/inboxes/" + address + "/chaos" }

// errorFields decodes an error body's message array and error.
func errorFields(t *testing.T, data []byte) (messages []string, reason string) {
	t.Helper()
	var body struct {
		Message    json.RawMessage `json:"message"`
		Error      string          `json:"error"`
		StatusCode int             `json:"statusCode"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatalf("error body %s: %v", data, err)
	}
	if err := json.Unmarshal(body.Message, &messages); err != nil {
		var one string
		if json.Unmarshal(body.Message, &one) != nil {
			t.Fatalf("message of %s is neither a string nor an array", data)
		}
		messages = []string{one}
	}
	return messages, body.Error
}

// TestChaosRoutesOff: with the switch off server info says so, the routes
// answer 403 before anything else (unknown inbox, bad body), and a chaos
// object at creation is validated, then dropped.
func TestChaosRoutesOff(t *testing.T) {
	_, c := servertest.StartAPI(t)
	var info model.ServerInfo
	c.Expect(http.StatusOK, "GET", "/api/server-info", nil, &info)
	status, raw := c.Do("GET", "/api/server-info", nil)
	if status != http.StatusOK || info.ChaosEnabled || !strings.Contains(string(raw), `"chaosEnabled":false`) {
		t.Fatalf("server info %d %s: want chaosEnabled false", status, raw)
	}
	for _, method := range []string{"GET", "POST", "DELETE"} {
		status, data := c.Do(method, chaosPath("nobody@sandbox.test"), map[string]any{"bogus": 1})
		msgs, reason := errorFields(t, data)
		if status != http.StatusForbidden || reason != "Forbidden" || len(msgs) != 1 || !strings.Contains(strings.ToLower(msgs[0]), "chaos") || !strings.Contains(msgs[0], "VSB_CHAOS_ENABLED=true") {
			t.Errorf("%s with the switch off: %d %s", method, status, data)
		}
	}
	noKey := *c
	noKey.Key = ""
	if status, _ := noKey.Do("GET", chaosPath("nobody@sandbox.test"), nil); status != http.StatusUnauthorized {
		t.Errorf("no key: %d, want 401 before 403", status)
	}
	status, data := c.Do("POST", "/api/inboxes", map[string]any{"encryption": "plain", "chaos": map[string]any{"enabled": true, "latency": map[string]any{"enabled": true, "maxDelayMs": 120000}}})
	if msgs, _ := errorFields(t, data); status != http.StatusBadRequest || len(msgs) != 1 || msgs[0] != "chaos.latency.maxDelayMs must not be greater than 60000" {
		t.Fatalf("bad chaos at creation: %d %s", status, data)
	}
	status, data = c.Do("POST", "/api/inboxes", map[string]any{"encryption": "plain", "chaos": map[string]any{"enabled": true}})
	if status != http.StatusCreated || strings.Contains(string(data), "chaos") {
		t.Fatalf("chaos at creation with the switch off: %d %s, want 201 without chaos", status, data)
	}
}

// TestChaosRoutes: the routes with the switch on (chaos.md, section 2 and
// the official clients' checklist of section 6).
func TestChaosRoutes(t *testing.T) {
	_, c := servertest.StartAPI(t, withChaos)
	var info model.ServerInfo
	if c.Expect(http.StatusOK, "GET", "/api/server-info", nil, &info); !info.ChaosEnabled {
		t.Fatal("server info: chaosEnabled false with the switch on")
	}
	in := c.CreatePlain(nil)
	addr := in.EmailAddress
	get := func() string {
		t.Helper()
		status, data := c.Do("GET", chaosPath(addr), nil)
		if status != http.StatusOK {
			t.Fatalf("GET: %d %s", status, data)
		}
		return string(data)
	}
	if got := get(); got != `{"enabled":false}` {
		t.Fatalf("GET on a new inbox: %s", got)
	}
	post := func(body string) string {
		t.Helper()
		req, _ := http.NewRequest("POST", c.Srv.URL()+chaosPath(strings.ToUpper(addr)), strings.NewReader(body))
		req.Header.Set("X-API-Key", c.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out json.RawMessage
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %s %v", body, resp.StatusCode, out, err)
		}
		return string(out)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"enabled":true,"latency":{"enabled":true}}`, `{"enabled":true,"latency":{"enabled":true,"minDelayMs":500,"maxDelayMs":10000,"jitter":true,"probability":1}}`},
		{`{"enabled":true}`, `{"enabled":true}`},
		{`{"enabled":false}`, `{"enabled":false}`},
		// The Go client's zero values validate; min > max is accepted.
		{`{"enabled":true,"expiresAt":"2030-01-02T03:04:05.123456789+01:00","latency":{"enabled":true,"minDelayMs":5000,"maxDelayMs":1000,"jitter":false,"probability":0},"connectionDrop":{"enabled":false,"probability":0,"graceful":false},"randomError":{"enabled":true,"errorRate":0,"errorTypes":[]},"greylist":{"enabled":false,"retryWindowMs":0,"maxAttempts":1,"trackBy":"ip"},"blackhole":{"enabled":false,"triggerWebhooks":false}}`,
			`{"enabled":true,"expiresAt":"2030-01-02T03:04:05.123456789+01:00","latency":{"enabled":true,"minDelayMs":5000,"maxDelayMs":1000,"jitter":false,"probability":0},"connectionDrop":{"enabled":false,"probability":0,"graceful":false},"randomError":{"enabled":true,"errorRate":0,"errorTypes":[]},"greylist":{"enabled":false,"retryWindowMs":0,"maxAttempts":1,"trackBy":"ip"},"blackhole":{"enabled":false,"triggerWebhooks":false}}`},
		{`{"enabled":true,"connectionDrop":{"enabled":true,"probability":null},"randomError":{"enabled":true},"greylist":{"enabled":true},"blackhole":{"enabled":true}}`,
			`{"enabled":true,"connectionDrop":{"enabled":true,"probability":1,"graceful":true},"randomError":{"enabled":true,"errorRate":0.1,"errorTypes":["temporary"]},"greylist":{"enabled":true,"retryWindowMs":300000,"maxAttempts":2,"trackBy":"ip_sender"},"blackhole":{"enabled":true,"triggerWebhooks":false}}`},
	} {
		if got := post(tc.body); got != tc.want {
			t.Errorf("POST %s:\n got %s\nwant %s", tc.body, got, tc.want)
		}
		if got := get(); got != tc.want {
			t.Errorf("GET after POST %s:\n got %s\nwant %s", tc.body, got, tc.want)
		}
	}
	// POST replaces: the second leaves out latency.
	post(`{"enabled":true,"latency":{"enabled":true}}`)
	if got := post(`{"enabled":true,"randomError":{"enabled":true}}`); strings.Contains(got, "latency") {
		t.Errorf("POST merged: %s", got)
	}
	if status, data := c.Do("DELETE", chaosPath(addr), nil); status != http.StatusNoContent || len(data) != 0 {
		t.Fatalf("DELETE: %d %q", status, data)
	}
	if got := get(); got != `{"enabled":false}` {
		t.Fatalf("GET after DELETE: %s", got)
	}
	other := c.CreatePlain(nil).EmailAddress
	if status, _ := c.Do("DELETE", chaosPath(other), nil); status != http.StatusNoContent {
		t.Fatalf("DELETE on an inbox that never had chaos: %d", status)
	}

	// Unknown inboxes, +tag aliases and deleted inboxes are 404 whose
	// error names no inbox; a bad body is 400 before that.
	tagged := strings.Replace(addr, "@", "+tag@", 1)
	for _, a := range []string{"Nobody@sandbox.test", tagged} {
		for _, method := range []string{"GET", "POST", "DELETE"} {
			status, data := c.Do(method, chaosPath(a), map[string]any{"enabled": true})
			msgs, reason := errorFields(t, data)
			if status != http.StatusNotFound || reason != "Not Found" || len(msgs) != 1 || msgs[0] != "Inbox not found: "+a {
				t.Errorf("%s %s: %d %s", method, a, status, data)
			}
		}
	}
	status, data := c.Do("POST", chaosPath("nobody@sandbox.test"), map[string]any{"enabled": "yes"})
	if msgs, reason := errorFields(t, data); status != http.StatusBadRequest || reason != "Bad Request" || strings.Join(msgs, "|") != "enabled must be a boolean value" {
		t.Errorf("bad body on an unknown inbox: %d %s, want 400 first", status, data)
	}
	post(`{"enabled":true,"blackhole":{"enabled":true}}`)
	c.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+addr, nil, nil)
	if status, data := c.Do("GET", chaosPath(addr), nil); status != http.StatusNotFound || !strings.Contains(string(data), `"error":"Not Found"`) {
		t.Fatalf("GET on a deleted inbox: %d %s", status, data)
	}

	// Chaos at creation is stored and echoed.
	var created struct {
		EmailAddress string            `json:"emailAddress"`
		Chaos        model.ChaosConfig `json:"chaos"`
	}
	c.Expect(http.StatusCreated, "POST", "/api/inboxes", map[string]any{"encryption": "plain", "chaos": map[string]any{"enabled": true, "greylist": map[string]any{"enabled": true, "maxAttempts": 3}}}, &created)
	if !created.Chaos.Enabled || created.Chaos.Greylist == nil || created.Chaos.Greylist.MaxAttempts != 3 || created.Chaos.Greylist.TrackBy != "ip_sender" {
		t.Fatalf("created with chaos: %+v", created)
	}
	if got := chaosOf(t, c, created.EmailAddress); !got.Enabled || got.Greylist == nil || !got.Greylist.Enabled {
		t.Fatalf("GET of an inbox created with chaos: %+v", got)
	}
}

// chaosOf is an inbox's chaos config.
func chaosOf(t *testing.T, c *servertest.Client, addr string) model.ChaosConfig {
	t.Helper()
	var cfg model.ChaosConfig
	c.Expect(http.StatusOK, "GET", chaosPath(addr), nil, &cfg)
	return cfg
}
