package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/model"
	"sandview/server/httpapi"
	"sandview/server/store"
	"sandview/server/store/memory"
)

// fakeInboxes is a fixed inbox registry.
type fakeInboxes map[string]string // lowercased address -> hash

func (f fakeInboxes) Lookup(address string) (string, string, bool) {
	a := strings.ToLower(address)
	hash, ok := f[a]
	return hash, a, ok
}

var testInboxes = fakeInboxes{"qa@sandbox.test": "hash-qa", "other@sandbox.test": "hash-other"}

// testConfig is a fast, HTTP-friendly configuration that delivers to
// receivers on loopback. No name resolves: a test never asks the
// machine's resolver (a query leaving loopback, and as slow as that
// resolver).
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.AllowHTTP = true
	cfg.AllowPrivate = true
	cfg.Resolver = fakeResolver{}
	cfg.Timeout = 5 * time.Second
	cfg.TimeScale = 0.001
	cfg.Store = memory.New()
	return cfg
}

// attemptLog is a store that reports every attempt's outcome the engine
// records.
type attemptLog struct {
	store.Webhooks
	attempts chan store.Attempt
}

func newAttemptLog(st store.Webhooks) *attemptLog {
	return &attemptLog{Webhooks: st, attempts: make(chan store.Attempt, 100)}
}

func (l *attemptLog) FinishAttempt(ctx context.Context, a store.Attempt) (store.WebhookRow, bool, error) {
	row, ok, err := l.Webhooks.FinishAttempt(ctx, a)
	l.attempts <- a
	return row, ok, err
}

// next waits for the next recorded attempt.
func (l *attemptLog) next(t *testing.T) store.Attempt {
	t.Helper()
	select {
	case a := <-l.attempts:
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("no attempt recorded within 10 s")
	}
	return store.Attempt{}
}

// harness is an engine with its routes on a local HTTP server.
type harness struct {
	t      *testing.T
	engine *Engine
	api    *httptest.Server
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	e, err := New(cfg, testInboxes)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	mux := http.NewServeMux()
	guard := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-API-Key") != "test-key" {
				httpapi.WriteError(w, http.StatusUnauthorized, "invalid API key")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	e.Register(mux, guard)
	api := httptest.NewServer(mux)
	h := &harness{t: t, engine: e, api: api}
	t.Cleanup(func() {
		api.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return h
}

// call sends a request to the routes and decodes a JSON answer into out.
func (h *harness) call(method, path string, body any, out any) int {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.api.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("X-API-Key", "test-key")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			h.t.Fatalf("%s %s: decode %s: %v", method, path, data, err)
		}
	}
	return resp.StatusCode
}

// create makes a webhook and fails the test unless it answers 201.
func (h *harness) create(path string, req model.CreateWebhookRequest) model.Webhook {
	h.t.Helper()
	var wh model.Webhook
	if status := h.call(http.MethodPost, path, req, &wh); status != http.StatusCreated {
		h.t.Fatalf("create webhook: status %d", status)
	}
	return wh
}

func (h *harness) get(path string) model.Webhook {
	h.t.Helper()
	var wh model.Webhook
	if status := h.call(http.MethodGet, path, nil, &wh); status != http.StatusOK {
		h.t.Fatalf("get %s: status %d", path, status)
	}
	return wh
}

// captured is one request a sink got.
type captured struct {
	At     time.Time
	Path   string
	Header http.Header
	Body   []byte
}

// sink is a real local HTTP endpoint that records deliveries and answers
// with a status chosen by the test.
type sink struct {
	*httptest.Server
	mu       sync.Mutex
	status   int
	got      []captured
	arrivals chan captured
}

func newSink(t *testing.T, status int) *sink {
	s := &sink{status: status, arrivals: make(chan captured, 10000)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c := captured{At: time.Now(), Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
		s.mu.Lock()
		s.got = append(s.got, c)
		status := s.status
		s.mu.Unlock()
		s.arrivals <- c
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sink) setStatus(status int) {
	s.mu.Lock()
	s.status = status
	s.mu.Unlock()
}

// next waits for the next delivery.
func (s *sink) next(t *testing.T) captured {
	t.Helper()
	select {
	case c := <-s.arrivals:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery arrived within 10 s")
	}
	return captured{}
}

// count is how many requests arrived so far.
func (s *sink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// hostileMail is an email whose every field tries to break JSON.
func hostileMail(emailID string) *model.EmailReceivedData {
	nasty := "quote \" backslash \\ newline \n tab \t ctrl \x01 sep \u2028\u2029 emoji 😀 {{data.subject}} {{ id }} </script> \"}]"
	return &model.EmailReceivedData{
		ID:         "msg_" + emailID,
		InboxID:    "hash-qa",
		InboxEmail: "qa@sandbox.test",
		From:       model.EventAddress{Address: "eve\"@evil.example", Name: nasty},
		To:         []model.EventAddress{{Address: "qa@sandbox.test", Name: nasty}},
		CC:         []model.EventAddress{{Address: "cc@example.org"}},
		Subject:    nasty,
		Snippet:    nasty,
		TextBody:   nasty + strings.Repeat("x", 300),
		HTMLBody:   "<p>" + nasty + "</p>",
		Headers:    map[string]string{"subject": nasty, "x-evil": nasty, "from": "eve"},
		Attachments: []model.EventAttachment{
			{Filename: nasty, ContentType: "text/plain", Size: 3},
		},
		Auth:       &model.EventAuth{SPF: "pass", DKIM: "fail", DMARC: "none"},
		ReceivedAt: "2026-11-21T13:25:55.789Z",
	}
}

// plainMail is an ordinary email.
func plainMail(emailID, subject string) *model.EmailReceivedData {
	return &model.EmailReceivedData{
		ID:          "msg_" + emailID,
		InboxID:     "hash-qa",
		InboxEmail:  "qa@sandbox.test",
		From:        model.EventAddress{Address: "dana@mail.example.org", Name: "Dana Example"},
		To:          []model.EventAddress{{Address: "qa@sandbox.test", Name: "QA Team"}},
		Subject:     subject,
		Snippet:     "Track it at https://example.org/track/1042",
		TextBody:    "Track it at https://example.org/track/1042\n",
		HTMLBody:    "<h1>Shipped</h1>",
		Headers:     map[string]string{"subject": subject, "x-priority": "1 (Highest)", "from": "Dana Example <dana@mail.example.org>"},
		Attachments: []model.EventAttachment{{Filename: "order.csv", ContentType: "text/csv", Size: 17}},
		Auth:        &model.EventAuth{SPF: "pass", DKIM: "pass", DMARC: "pass"},
		ReceivedAt:  "2026-11-21T13:25:55.789Z",
	}
}

func received(emailID string, data *model.EmailReceivedData) Incoming {
	return Incoming{Type: model.EventEmailReceived, At: time.Now(), InboxEmail: "qa@sandbox.test",
		InboxHash: "hash-qa", EmailID: emailID, Received: data, AuthVerdict: model.VerdictPassed}
}

func stored(emailID string) Incoming {
	return Incoming{Type: model.EventEmailStored, At: time.Now(), InboxEmail: "qa@sandbox.test", InboxHash: "hash-qa", EmailID: emailID}
}

func deleted(emailID, reason string) Incoming {
	return Incoming{Type: model.EventEmailDeleted, At: time.Now(), InboxEmail: "qa@sandbox.test", InboxHash: "hash-qa",
		EmailID: emailID, Reason: reason}
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
