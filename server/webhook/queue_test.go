package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/store"
	"sandview/server/store/bolt"
)

func closeEngine(t *testing.T, e *Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// openStore opens the bbolt store of the data directory dir, where an
// engine keeps its webhooks; close it after the engine, as a server does.
func openStore(t *testing.T, dir string) *bolt.Store {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, "sandview.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	// The store holds the inboxes the webhooks are scoped to, as a
	// server's does.
	for address, hash := range testInboxes {
		if err := db.PutInbox(context.Background(), store.Inbox{Address: address, Hash: hash}); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// restart closes the store an engine kept its webhooks in and opens it
// again into cfg, as a restart of the server does.
func restart(t *testing.T, cfg *Config, dir string) {
	t.Helper()
	if err := cfg.Store.(*bolt.Store).Close(); err != nil {
		t.Fatal(err)
	}
	cfg.Store = openStore(t, dir)
}

// lastFailed reports whether a webhook's latest attempt failed: the
// engine has recorded it, and queued its retry.
func lastFailed(h *harness, id string) func() bool {
	return func() bool { return h.get("/api/webhooks/"+id).LastDeliveryStatus == "failed" }
}

func TestPersistenceOfWebhooksAndPendingRetries(t *testing.T) {
	dir := t.TempDir()
	s := newSink(t, http.StatusInternalServerError)

	cfg := testConfig()
	cfg.Store = openStore(t, dir)
	// The retry waits 30 s on a clock 27 s behind the store's: it is still
	// queued at Close and due 3 s after the failed attempt.
	cfg.TimeScale = 1
	cfg.Now = func() time.Time { return time.Now().Add(-27 * time.Second) }
	first := newHarness(t, cfg)
	wh := first.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL, Events: []string{model.EventEmailReceived},
		Template: &model.WebhookTemplate{Type: model.TemplateSimple},
		Filter:   &model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "subject", Operator: "regex", Value: "^keep"}}}})
	inboxHook := first.create("/api/inboxes/qa@sandbox.test/webhooks", model.CreateWebhookRequest{URL: s.URL + "/inbox", Events: []string{model.EventEmailDeleted}})
	var rot model.RotateSecretResponse
	first.call(http.MethodPost, "/api/webhooks/"+wh.ID+"/rotate-secret", nil, &rot)
	first.engine.Handle(received("p1", plainMail("p1", "keep me")))
	firstAttempt := s.next(t)
	eventually(t, "retry queued", lastFailed(first, wh.ID))
	closeEngine(t, first.engine)
	restart(t, &cfg, dir)

	// Restart with a fast schedule and a healthy endpoint: the queued
	// retry is sent when due with the same delivery id and body, signed
	// with the current secret.
	s.setStatus(http.StatusOK)
	cfg.TimeScale = 0.001
	cfg.Now = nil
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
	closeEngine(t, second.engine)
	restart(t, &cfg, dir)

	// Third start: the delivered retry is gone, stats were saved.
	third := newHarness(t, cfg)
	if ds, _, err := cfg.Store.ClaimDeliveries(context.Background(), 10, time.Minute); err != nil || len(ds) != 0 {
		t.Errorf("third start: queued deliveries %+v %v, want none", ds, err)
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
	cfg.Store = openStore(t, dir)
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
	restart(t, &cfg, dir)

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

// enqueueLog is a store that records the webhooks of each queued batch
// of deliveries, in order.
type enqueueLog struct {
	store.Webhooks
	mu  sync.Mutex
	ids [][]string
}

func (l *enqueueLog) EnqueueDeliveries(ctx context.Context, ds []store.QueuedDelivery) error {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.WebhookID
	}
	l.mu.Lock()
	l.ids = append(l.ids, ids)
	l.mu.Unlock()
	return l.Webhooks.EnqueueDeliveries(ctx, ds)
}

// TestCreationOrderSurvivesRestart: under a clock that never moves every
// webhook has the same createdAt, yet lists stay in creation order, the
// deliveries of one event are queued in that order, and a restart
// continues the numbering after everything stored.
func TestCreationOrderSurvivesRestart(t *testing.T) {
	frozen := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	dir := t.TempDir()
	cfg := testConfig()
	log := &enqueueLog{Webhooks: openStore(t, dir)}
	cfg.Store = log
	cfg.Now = func() time.Time { return frozen }
	cfg.TimeScale = 1 // retries wait until an hour from now: still queued at Close
	s := newSink(t, http.StatusInternalServerError)
	var want []string
	createFive := func(h *harness) {
		for range 5 {
			wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL, Events: []string{model.EventEmailReceived}})
			want = append(want, wh.ID)
		}
	}
	listed := func(h *harness) []string {
		var list model.WebhookList
		h.call(http.MethodGet, "/api/webhooks", nil, &list)
		ids := make([]string, len(list.Webhooks))
		for i, w := range list.Webhooks {
			ids[i] = w.ID
		}
		return ids
	}

	first := newHarness(t, cfg)
	createFive(first)
	if got := listed(first); !slices.Equal(got, want) {
		t.Fatalf("list %v, want creation order %v", got, want)
	}
	first.engine.Handle(received("o1", plainMail("o1", "ordered")))
	for _, id := range want {
		eventually(t, "retry of "+id+" queued", lastFailed(first, id))
	}
	closeEngine(t, first.engine)
	log.mu.Lock()
	queued := log.ids
	log.mu.Unlock()
	if len(queued) != 1 || !slices.Equal(queued[0], want) {
		t.Fatalf("deliveries queued for %v, want one batch in creation order %v", queued, want)
	}
	rows, _, err := cfg.Store.LoadWebhooks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lastSeq := rows[len(rows)-1].Seq

	if err := log.Webhooks.(*bolt.Store).Close(); err != nil {
		t.Fatal(err)
	}
	cfg.Store = openStore(t, dir)
	second := newHarness(t, cfg)
	createFive(second)
	if got := listed(second); !slices.Equal(got, want) {
		t.Fatalf("list after restart %v, want creation order %v", got, want)
	}
	second.engine.mu.Lock()
	firstNew := second.engine.hooks[want[5]].rec.Seq
	second.engine.mu.Unlock()
	if firstNew <= lastSeq+5 {
		t.Errorf("first webhook after restart has seq %d, not above the stored webhooks' %d and their 5 deliveries'", firstNew, lastSeq)
	}
}

// TestCloseAfterTheDeadlineWithNothingRunning: a deadline that has passed
// by the time Close runs is no error when no delivery was cut off.
func TestCloseAfterTheDeadlineWithNothingRunning(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for range 50 {
		cfg := testConfig()
		cfg.Store = openStore(t, t.TempDir())
		e, err := New(cfg, testInboxes)
		if err != nil {
			t.Fatal(err)
		}
		e.Handle(received("n1", plainMail("n1", "no webhook wants this")))
		if err := e.Close(ended); err != nil {
			t.Fatalf("Close with an ended context and nothing running: %v", err)
		}
	}
}
