package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/model"
)

func closeEngine(t *testing.T, e *Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestPersistenceOfWebhooksAndPendingRetries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s := newSink(t, http.StatusInternalServerError)

	cfg := testConfig()
	cfg.DataDir = dir
	cfg.TimeScale = 1 // the retry waits 30 s: still pending at Close
	first := newHarness(t, cfg)
	wh := first.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL, Events: []string{model.EventEmailReceived},
		Template: &model.WebhookTemplate{Type: model.TemplateSimple},
		Filter:   &model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "subject", Operator: "regex", Value: "^keep"}}}})
	inboxHook := first.create("/api/inboxes/qa@sandbox.test/webhooks", model.CreateWebhookRequest{URL: s.URL + "/inbox", Events: []string{model.EventEmailDeleted}})
	var rot model.RotateSecretResponse
	first.call(http.MethodPost, "/api/webhooks/"+wh.ID+"/rotate-secret", nil, &rot)
	first.engine.Handle(received("p1", plainMail("p1", "keep me")))
	firstAttempt := s.next(t)
	eventually(t, "retry queued", func() bool {
		first.engine.mu.Lock()
		defer first.engine.mu.Unlock()
		return len(first.engine.timers) == 1
	})
	closeEngine(t, first.engine)

	info, err := os.Stat(filepath.Join(dir, dbFileName))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("webhooks.db mode %v, want 0600", info.Mode().Perm())
	}
	if dirInfo, err := os.Stat(dir); err != nil || dirInfo.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v (%v), want 0700", dirInfo.Mode().Perm(), err)
	}

	// Restart with a fast schedule and a healthy endpoint: the pending
	// retry is sent with the same delivery id and body, signed with the
	// current secret.
	// The clock runs a minute ahead, so the 30 s retry is due at once.
	s.setStatus(http.StatusOK)
	cfg.TimeScale = 0.001
	cfg.Now = func() time.Time { return time.Now().Add(time.Minute) }
	second := newHarness(t, cfg)
	retry := s.next(t)
	if retry.Header.Get("X-Service-Delivery") != firstAttempt.Header.Get("X-Service-Delivery") || string(retry.Body) != string(firstAttempt.Body) {
		t.Error("the retry after restart is not the same delivery")
	}
	if !crypto.VerifyWebhookSignature(retry.Header.Get("X-Service-Signature"), retry.Header.Get("X-Service-Timestamp"), retry.Body, rot.Secret) {
		t.Error("retry not signed with the current secret")
	}
	got := second.get("/api/webhooks/" + wh.ID)
	if got.Secret != rot.Secret || got.Template == nil || got.Template.Type != "simple" || got.Filter == nil || len(got.Filter.Rules) != 1 {
		t.Errorf("restored webhook %+v", got)
	}
	eventually(t, "success recorded", func() bool { return second.get("/api/webhooks/"+wh.ID).Stats.SuccessfulDeliveries == 1 })
	if !second.engine.VerifySignature(wh.ID, firstAttempt.Header.Get("X-Service-Signature"), firstAttempt.Header.Get("X-Service-Timestamp"), firstAttempt.Body) {
		t.Error("previous secret's grace not restored")
	}
	second.get("/api/inboxes/qa@sandbox.test/webhooks/" + inboxHook.ID)
	// The compiled filter works after the restart.
	second.engine.Handle(received("p2", plainMail("p2", "drop me")))
	second.engine.Handle(received("p3", plainMail("p3", "keep this too")))
	if c := s.next(t); !strings.Contains(string(c.Body), "keep this too") {
		t.Errorf("filtered delivery after restart: %s", c.Body)
	}
	second.engine.ForgetInbox("qa@sandbox.test")
	closeEngine(t, second.engine)

	// Third start: the delivered retry is gone, stats were saved, the
	// forgotten inbox's webhook is gone.
	third := newHarness(t, cfg)
	third.engine.mu.Lock()
	timers, hooks := len(third.engine.timers), len(third.engine.hooks)
	third.engine.mu.Unlock()
	if timers != 0 || hooks != 1 {
		t.Errorf("third start: %d pending retries, %d webhooks; want 0 and 1", timers, hooks)
	}
	if got := third.get("/api/webhooks/" + wh.ID); got.Stats.SuccessfulDeliveries != 2 || got.Stats.TotalDeliveries != 2 {
		t.Errorf("stats not persisted: %+v", got.Stats)
	}
}

func TestCloseKeepsInterruptedDeliveries(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	arrived := make(chan string, 10)
	slow := newBlockingEndpoint(t, release, arrived)
	cfg := testConfig()
	cfg.DataDir = dir
	cfg.Timeout = 30 * time.Second
	first := newHarness(t, cfg)
	first.create("/api/webhooks", model.CreateWebhookRequest{URL: slow, Events: []string{model.EventEmailReceived}})
	first.engine.Handle(received("i1", plainMail("i1", "interrupted")))
	id := <-arrived
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := first.engine.Close(ctx); err == nil {
		t.Error("Close with a delivery in flight past the deadline reported no error")
	}
	close(release)

	second := newHarness(t, cfg)
	select {
	case again := <-arrived:
		if again != id {
			t.Errorf("delivery %s after restart, want %s", again, id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("interrupted delivery not resumed after restart")
	}
	if second.engine.Enabled() != true {
		t.Error("restarted engine not enabled")
	}
}

// newBlockingEndpoint answers only once release is closed, reporting each
// delivery id as it arrives.
func newBlockingEndpoint(t *testing.T, release chan struct{}, arrived chan string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- r.Header.Get("X-Service-Delivery")
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
