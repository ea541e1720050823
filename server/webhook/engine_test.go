package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandview/client/webhookrecv"
	"sandview/crypto"
	"sandview/model"
	"sandview/server/store/memory"
)

func TestDeliveriesAreSignedAndShaped(t *testing.T) {
	cfg := testConfig()
	cfg.MaxHeaders = 2
	cfg.MaxHeaderValueLen = 5
	h := newHarness(t, cfg)
	ctx := t.Context()
	recv, err := webhookrecv.Listen(ctx, "127.0.0.1:0", webhookrecv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: recv.URL(),
		Events: []string{model.EventEmailReceived, model.EventEmailStored, model.EventEmailDeleted}})
	if !strings.HasPrefix(wh.ID, "whk_") || len(wh.ID) != 36 || !strings.HasPrefix(wh.Secret, "whsec_") || len(wh.Secret) != 70 {
		t.Fatalf("id %q secret length %d", wh.ID, len(wh.Secret))
	}
	recv.SetSecrets(wh.Secret)

	mail := plainMail("e1", "Your order")
	mail.Headers = map[string]string{"b-header": "0123456789", "a-header": "abc", "c-header": "dropped"}
	h.engine.Handle(received("e1", mail))
	h.engine.Handle(stored("e1"))
	h.engine.Handle(deleted("e1", model.DeleteReasonTTL))

	byType := map[string]webhookrecv.Delivery{}
	for range 3 {
		select {
		case d := <-recv.Deliveries():
			byType[d.Event] = d
		case <-time.After(10 * time.Second):
			t.Fatal("deliveries did not arrive")
		}
	}
	var eventIDs []string
	for _, typ := range []string{model.EventEmailReceived, model.EventEmailStored, model.EventEmailDeleted} {
		d, ok := byType[typ]
		if !ok {
			t.Fatalf("no %s delivery", typ)
		}
		if d.Signature != webhookrecv.SignatureValid {
			t.Errorf("%s: signature %v", typ, d.Signature)
		}
		if got := d.Headers.Get("User-Agent"); got != "Service-Webhook/1.0" {
			t.Errorf("%s: User-Agent %q", typ, got)
		}
		if got := d.Headers.Get("Content-Type"); got != "application/json" {
			t.Errorf("%s: Content-Type %q", typ, got)
		}
		if !strings.HasPrefix(d.DeliveryID, "dlv_") || d.Headers.Get("X-Service-Event") != typ {
			t.Errorf("%s: delivery headers %v", typ, d.Headers)
		}
		if !crypto.VerifyWebhookSignature(d.Headers.Get("X-Service-Signature"), d.Headers.Get("X-Service-Timestamp"), d.Body, wh.Secret) {
			t.Errorf("%s: signature does not verify with the secret", typ)
		}
		var env model.Event
		if err := json.Unmarshal(d.Body, &env); err != nil {
			t.Fatalf("%s: body: %v", typ, err)
		}
		if !strings.HasPrefix(env.ID, "evt_") || env.Object != "event" || env.Type != typ || env.CreatedAt == 0 {
			t.Errorf("%s: envelope %+v", typ, env)
		}
		eventIDs = append(eventIDs, env.ID)
		var data struct {
			ID, InboxID, InboxEmail, Reason, StoredAt, DeletedAt string
		}
		if err := json.Unmarshal(env.Data, &data); err != nil {
			t.Fatal(err)
		}
		if data.ID != "msg_e1" || data.InboxID != "hash-qa" || data.InboxEmail != "qa@sandbox.test" {
			t.Errorf("%s: data %+v", typ, data)
		}
		switch typ {
		case model.EventEmailReceived:
			var r model.EmailReceivedData
			if err := json.Unmarshal(env.Data, &r); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"a-header": "abc", "b-header": "01234"}
			if len(r.Headers) != 2 || r.Headers["a-header"] != want["a-header"] || r.Headers["b-header"] != want["b-header"] {
				t.Errorf("header limits not applied: %v", r.Headers)
			}
			if r.Subject != "Your order" || len(r.Attachments) != 1 || r.Auth == nil || r.Auth.DMARC != "pass" {
				t.Errorf("received data %+v", r)
			}
			if strings.Contains(string(env.Data), `"content"`) {
				t.Error("attachments carry content")
			}
		case model.EventEmailStored:
			if _, err := time.Parse(time.RFC3339, data.StoredAt); err != nil {
				t.Errorf("storedAt %q", data.StoredAt)
			}
		case model.EventEmailDeleted:
			if data.Reason != "ttl" || data.DeletedAt == "" {
				t.Errorf("deleted data %+v", data)
			}
		}
	}
	if eventIDs[0] == eventIDs[1] || eventIDs[1] == eventIDs[2] {
		t.Errorf("event ids repeat: %v", eventIDs)
	}
	// The input's headers were not modified by the limits.
	if len(mail.Headers) != 3 || mail.Headers["b-header"] != "0123456789" {
		t.Errorf("input headers changed: %v", mail.Headers)
	}
	eventually(t, "stats", func() bool { return h.get("/api/webhooks/"+wh.ID).Stats.SuccessfulDeliveries == 3 })
	got := h.get("/api/webhooks/" + wh.ID)
	if got.LastDeliveryStatus != "success" || got.LastDeliveryAt == nil || got.Stats.TotalDeliveries != 3 {
		t.Errorf("after deliveries: %+v %+v", got, got.Stats)
	}
}

// TestRetryScheduleFollowsTimeScale: each failed attempt queues the next one
// the scaled schedule's delay later. The clock is frozen in the past, so
// each queued retry's due time is exact and comes due at once.
func TestRetryScheduleFollowsTimeScale(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)}
	cfg := testConfig()
	cfg.Now = clock.Now
	cfg.MaxAttempts = 4
	cfg.RetrySchedule = []time.Duration{0, 2 * time.Hour, 4 * time.Hour, 6 * time.Hour}
	cfg.TimeScale = 0.5
	log := newAttemptLog(cfg.Store)
	cfg.Store = log
	h := newHarness(t, cfg)
	s := newSink(t, http.StatusInternalServerError)
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL + "/hook", Events: []string{model.EventEmailReceived}})

	h.engine.Handle(received("r1", plainMail("r1", "retry me")))
	var arrivals []captured
	for i, delay := range []time.Duration{time.Hour, 2 * time.Hour, 3 * time.Hour, 0} {
		arrivals = append(arrivals, s.next(t))
		a := log.next(t)
		if want := clock.Now().Add(delay); delay == 0 && !a.RetryAt.IsZero() || delay != 0 && !a.RetryAt.Equal(want) {
			t.Errorf("attempt %d: next one at %v, want %v later", i+1, a.RetryAt, delay)
		}
	}
	first := arrivals[0]
	for i, a := range arrivals {
		if a.Header.Get("X-Service-Delivery") != first.Header.Get("X-Service-Delivery") || string(a.Body) != string(first.Body) {
			t.Errorf("attempt %d changed delivery id or body", i+1)
		}
		if !crypto.VerifyWebhookSignature(a.Header.Get("X-Service-Signature"), a.Header.Get("X-Service-Timestamp"), a.Body, wh.Secret) {
			t.Errorf("attempt %d: bad signature", i+1)
		}
	}
	eventually(t, "failed delivery counted", func() bool { return h.get("/api/webhooks/"+wh.ID).Stats.FailedDeliveries == 1 })
	got := h.get("/api/webhooks/" + wh.ID)
	if got.Stats.TotalDeliveries != 1 || got.LastDeliveryStatus != "failed" || !got.Enabled {
		t.Errorf("after one failed delivery: %+v %+v", got, got.Stats)
	}
	if n := s.count(); n != 4 {
		t.Errorf("%d attempts, want exactly MaxAttempts = 4", n)
	}
}

func TestRetrySucceedsLater(t *testing.T) {
	h := newHarness(t, testConfig())
	s := newSink(t, http.StatusServiceUnavailable)
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL, Events: []string{model.EventEmailReceived}})
	h.engine.Handle(received("r2", plainMail("r2", "later")))
	s.next(t)
	s.setStatus(http.StatusNoContent)
	s.next(t)
	eventually(t, "success", func() bool { return h.get("/api/webhooks/"+wh.ID).Stats.SuccessfulDeliveries == 1 })
	if got := h.get("/api/webhooks/" + wh.ID); got.Stats.FailedDeliveries != 0 || got.LastDeliveryStatus != "success" {
		t.Errorf("stats %+v", got.Stats)
	}
}

func TestAutoDisableAfterFiveFailedDeliveries(t *testing.T) {
	cfg := testConfig()
	cfg.MaxAttempts = 1
	h := newHarness(t, cfg)
	s := newSink(t, http.StatusInternalServerError)
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL, Events: []string{model.EventEmailReceived}})
	path := "/api/webhooks/" + wh.ID
	deliver := func(n int, wantTotal int) {
		t.Helper()
		h.engine.Handle(received("a"+strconv.Itoa(n), plainMail("a"+strconv.Itoa(n), "x")))
		eventually(t, "delivery outcome", func() bool { return h.get(path).Stats.TotalDeliveries == wantTotal })
	}
	for i := 1; i <= 4; i++ {
		deliver(i, i)
	}
	s.setStatus(http.StatusOK)
	deliver(5, 5) // a success resets the streak
	s.setStatus(http.StatusInternalServerError)
	for i := 6; i <= 9; i++ {
		deliver(i, i)
	}
	if !h.get(path).Enabled {
		t.Fatal("disabled after 4 consecutive failures")
	}
	deliver(10, 10)
	got := h.get(path)
	if got.Enabled || got.Stats.FailedDeliveries != 9 || got.Stats.SuccessfulDeliveries != 1 {
		t.Fatalf("after 5 consecutive failures: enabled %v stats %+v", got.Enabled, got.Stats)
	}
	// Disabled: no deliveries. A second webhook witnesses that the events
	// were dispatched (one dispatch starts every delivery of an event).
	witness := newSink(t, http.StatusOK)
	h.create("/api/webhooks", model.CreateWebhookRequest{URL: witness.URL, Events: []string{model.EventEmailReceived, model.EventEmailStored}})
	before := s.count()
	h.engine.Handle(received("a11", plainMail("a11", "x")))
	h.engine.Handle(stored("a11"))
	witness.next(t)
	witness.next(t)
	if s.count() != before {
		t.Error("a disabled webhook got a delivery")
	}
	// The test operation still reaches the endpoint of a disabled webhook.
	var res model.TestWebhookResponse
	h.call(http.MethodPost, path+"/test", nil, &res)
	if res.StatusCode != http.StatusInternalServerError || res.Success || s.count() != before+1 {
		t.Errorf("test of a disabled webhook: status %d success %v", res.StatusCode, res.Success)
	}
	var m model.WebhookMetrics
	h.call(http.MethodGet, "/api/webhooks/metrics", nil, &m)
	if m.Webhooks.Enabled != 1 || m.Webhooks.Total != 2 || m.Webhooks.Global != 2 || m.Deliveries.Failed != 9 {
		t.Errorf("metrics %+v", m)
	}
	// Re-enabling resumes deliveries.
	enable := true
	s.setStatus(http.StatusOK)
	var updated model.Webhook
	if status := h.call(http.MethodPatch, path, model.UpdateWebhookRequest{Enabled: &enable}, &updated); status != http.StatusOK || !updated.Enabled {
		t.Fatalf("re-enable: %d %+v", status, updated)
	}
	deliver(12, 11)
	if got := h.get(path); got.Stats.SuccessfulDeliveries != 2 || !got.Enabled {
		t.Errorf("after re-enable: %+v", got.Stats)
	}
}

func TestRetryQueueBound(t *testing.T) {
	cfg := testConfig()
	cfg.TimeScale = 1 // retries wait 30 s: they stay queued during the test
	cfg.MaxQueuedRetriesPerWebhook = 2
	h := newHarness(t, cfg)
	s := newSink(t, http.StatusInternalServerError)
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL, Events: []string{model.EventEmailReceived}})
	for i := range 5 {
		h.engine.Handle(received("q"+strconv.Itoa(i), plainMail("q"+strconv.Itoa(i), "x")))
	}
	eventually(t, "first attempts", func() bool { return s.count() == 5 })
	eventually(t, "3 deliveries failed at once", func() bool { return h.get("/api/webhooks/"+wh.ID).Stats.FailedDeliveries == 3 })
	// The other two wait for their retry, uncounted.
	if got := h.get("/api/webhooks/" + wh.ID); got.Stats.TotalDeliveries != 3 || s.count() != 5 {
		t.Errorf("stats %+v after %d attempts; want 3 deliveries counted of 5 attempts", got.Stats, s.count())
	}
}

func TestRotationGrace(t *testing.T) {
	clock := &fakeClock{now: time.Now()}
	cfg := testConfig()
	cfg.Now = clock.Now
	h := newHarness(t, cfg)
	s := newSink(t, http.StatusOK)
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL, Events: []string{model.EventEmailReceived}})
	h.engine.Handle(received("g1", plainMail("g1", "before")))
	before := s.next(t)
	sig := func(c captured) (string, string) {
		return c.Header.Get("X-Service-Signature"), c.Header.Get("X-Service-Timestamp")
	}
	oldSig, oldTS := sig(before)
	if prev := before.Header.Get("X-Service-Signature-Previous"); prev != "" {
		t.Errorf("a signature for a previous secret before any rotation: %q", prev)
	}

	var rot model.RotateSecretResponse
	if status := h.call(http.MethodPost, "/api/webhooks/"+wh.ID+"/rotate-secret", nil, &rot); status != http.StatusOK {
		t.Fatalf("rotate: %d", status)
	}
	if rot.ID != wh.ID || !strings.HasPrefix(rot.Secret, "whsec_") || rot.Secret == wh.Secret {
		t.Fatalf("rotate answer %+v", rot)
	}
	if d := rot.PreviousSecretValidUntil.Sub(clock.Now()); d < time.Hour-time.Second || d > time.Hour {
		t.Errorf("previousSecretValidUntil is %v after now", d)
	}
	if got := h.get("/api/webhooks/" + wh.ID); got.Secret != rot.Secret {
		t.Errorf("get shows %q, want the new secret", got.Secret)
	}
	h.engine.Handle(received("g2", plainMail("g2", "after")))
	after := s.next(t)
	newSig, newTS := sig(after)
	if !crypto.VerifyWebhookSignature(newSig, newTS, after.Body, rot.Secret) || crypto.VerifyWebhookSignature(newSig, newTS, after.Body, wh.Secret) {
		t.Error("deliveries after rotation must be signed with the new secret only")
	}
	// During the grace a second header carries the previous secret's
	// signature; a receiver that holds only the old secret verifies it.
	prev := after.Header.Get("X-Service-Signature-Previous")
	if !crypto.VerifyWebhookSignature(prev, newTS, after.Body, wh.Secret) || crypto.VerifyWebhookSignature(prev, newTS, after.Body, rot.Secret) {
		t.Errorf("X-Service-Signature-Previous %q is not the previous secret's signature", prev)
	}
	for _, secret := range []string{wh.Secret, rot.Secret} {
		if st, _, _, _ := webhookrecv.Verify(after.Header, after.Body, []string{secret}, 0, time.Now()); st != webhookrecv.SignatureValid {
			t.Errorf("webhookrecv with one of the two secrets: %v", st)
		}
	}
	// During the grace both secrets are valid.
	if !h.engine.VerifySignature(wh.ID, oldSig, oldTS, before.Body) || !h.engine.VerifySignature(wh.ID, newSig, newTS, after.Body) {
		t.Error("during the grace both secrets must verify")
	}
	clock.Advance(time.Hour - time.Second)
	if !h.engine.VerifySignature(wh.ID, oldSig, oldTS, before.Body) {
		t.Error("old secret refused before the grace ended")
	}
	clock.Advance(2 * time.Second)
	if h.engine.VerifySignature(wh.ID, oldSig, oldTS, before.Body) {
		t.Error("old secret still valid after the grace")
	}
	h.engine.Handle(received("g3", plainMail("g3", "after the grace")))
	if prev := s.next(t).Header.Get("X-Service-Signature-Previous"); prev != "" {
		t.Errorf("a signature for the previous secret after the grace: %q", prev)
	}
	if !h.engine.VerifySignature(wh.ID, newSig, newTS, after.Body) {
		t.Error("new secret refused after the grace")
	}
	if h.engine.VerifySignature("whk_unknown", newSig, newTS, after.Body) {
		t.Error("unknown webhook verified")
	}
}

// blockingSink holds every request until released and tracks how many are
// in flight, per path and overall.
type blockingSink struct {
	release  chan struct{}
	mu       sync.Mutex
	inFlight map[string]int
	maxPath  map[string]int
	total    int
	maxTotal int
	done     atomic.Int64
}

func newBlockingSink(t *testing.T) (*blockingSink, string) {
	b := &blockingSink{release: make(chan struct{}), inFlight: map[string]int{}, maxPath: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.inFlight[r.URL.Path]++
		b.total++
		b.maxPath[r.URL.Path] = max(b.maxPath[r.URL.Path], b.inFlight[r.URL.Path])
		b.maxTotal = max(b.maxTotal, b.total)
		b.mu.Unlock()
		<-b.release
		b.mu.Lock()
		b.inFlight[r.URL.Path]--
		b.total--
		b.mu.Unlock()
		b.done.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return b, srv.URL
}

func (b *blockingSink) snapshot() (total, maxTotal int, maxPath map[string]int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := make(map[string]int, len(b.maxPath))
	for k, v := range b.maxPath {
		m[k] = v
	}
	return b.total, b.maxTotal, m
}

func TestConcurrencyCapPerWebhook(t *testing.T) {
	cfg := testConfig()
	cfg.Timeout = 30 * time.Second
	h := newHarness(t, cfg)
	b, url := newBlockingSink(t)
	h.create("/api/webhooks", model.CreateWebhookRequest{URL: url + "/one", Events: []string{model.EventEmailReceived}})
	for i := range 25 {
		h.engine.Handle(received("c"+strconv.Itoa(i), plainMail("c"+strconv.Itoa(i), "x")))
	}
	eventually(t, "10 in flight", func() bool { total, _, _ := b.snapshot(); return total == 10 })
	close(b.release)
	eventually(t, "all delivered", func() bool { return b.done.Load() == 25 })
	_, maxTotal, maxPath := b.snapshot()
	if maxPath["/one"] != 10 || maxTotal != 10 {
		t.Errorf("max in flight %d for the webhook (%d overall), want 10", maxPath["/one"], maxTotal)
	}
}

func TestConcurrencyCapOverall(t *testing.T) {
	cfg := testConfig()
	cfg.Timeout = 30 * time.Second
	h := newHarness(t, cfg)
	b, url := newBlockingSink(t)
	const hooks, perHook = 12, 12
	for i := range hooks {
		h.create("/api/webhooks", model.CreateWebhookRequest{URL: url + "/h" + strconv.Itoa(i), Events: []string{model.EventEmailReceived}})
	}
	for i := range perHook {
		h.engine.Handle(received("o"+strconv.Itoa(i), plainMail("o"+strconv.Itoa(i), "x")))
	}
	eventually(t, "100 in flight", func() bool { total, _, _ := b.snapshot(); return total == 100 })
	close(b.release)
	eventually(t, "all delivered", func() bool { return b.done.Load() == hooks*perHook })
	_, maxTotal, maxPath := b.snapshot()
	if maxTotal != 100 {
		t.Errorf("max in flight overall %d, want 100", maxTotal)
	}
	for path, m := range maxPath {
		if m > 10 {
			t.Errorf("%s: %d in flight, want at most 10", path, m)
		}
	}
}

func TestFiltersOnStoredAndDeletedFollowReceived(t *testing.T) {
	h := newHarness(t, testConfig())
	s := newSink(t, http.StatusOK)
	all := []string{model.EventEmailReceived, model.EventEmailStored, model.EventEmailDeleted}
	h.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL + "/filtered", Events: []string{model.EventEmailStored, model.EventEmailDeleted},
		Filter: &model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "subject", Operator: "contains", Value: "invoice"}}}})
	h.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL + "/all", Events: all})
	h.create("/api/inboxes/other@sandbox.test/webhooks", model.CreateWebhookRequest{URL: s.URL + "/other-inbox", Events: all})
	h.create("/api/inboxes/QA@sandbox.test/webhooks", model.CreateWebhookRequest{URL: s.URL + "/qa-inbox", Events: []string{model.EventEmailDeleted}})

	h.engine.Handle(received("m1", plainMail("m1", "Your Invoice #7")))
	h.engine.Handle(received("m2", plainMail("m2", "Newsletter")))
	for _, id := range []string{"m1", "m2", "m-unknown"} {
		h.engine.Handle(stored(id))
		h.engine.Handle(deleted(id, model.DeleteReasonManual))
	}
	// all: 2 received + 3 stored + 3 deleted; filtered: m1 stored+deleted;
	// qa-inbox: 3 deleted; other-inbox: none.
	eventually(t, "deliveries", func() bool { return s.count() == 8+2+3 })
	counts := map[string]int{}
	simple := map[string]string{}
	for range 13 {
		c := <-s.arrivals
		counts[c.Path]++
		if c.Path == "/filtered" {
			var env model.Event
			_ = json.Unmarshal(c.Body, &env)
			var d struct{ ID string }
			_ = json.Unmarshal(env.Data, &d)
			simple[d.ID+" "+env.Type] = c.Path
		}
	}
	if counts["/all"] != 8 || counts["/filtered"] != 2 || counts["/qa-inbox"] != 3 || counts["/other-inbox"] != 0 {
		t.Errorf("deliveries per webhook: %v", counts)
	}
	if _, ok := simple["msg_m1 email.stored"]; !ok {
		t.Errorf("filtered webhook got %v", simple)
	}
}

func TestForgetInboxDropsItsWebhooks(t *testing.T) {
	h := newHarness(t, testConfig())
	s := newSink(t, http.StatusOK)
	inboxHook := h.create("/api/inboxes/qa@sandbox.test/webhooks", model.CreateWebhookRequest{URL: s.URL, Events: []string{model.EventEmailReceived}})
	global := h.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL, Events: []string{model.EventEmailReceived}})
	// The store deletes an inbox's webhooks with it; the engine forgets
	// those it caches.
	if err := h.engine.cfg.Store.(*memory.Store).DeleteInbox(context.Background(), "hash-qa"); err != nil {
		t.Fatal(err)
	}
	h.engine.ForgetInbox("QA@sandbox.test")
	var wh model.Webhook
	if status := h.call(http.MethodGet, "/api/inboxes/qa@sandbox.test/webhooks/"+inboxHook.ID, nil, &wh); status != http.StatusNotFound {
		t.Errorf("inbox webhook after ForgetInbox: %d", status)
	}
	h.get("/api/webhooks/" + global.ID)
}

func TestTestOperation(t *testing.T) {
	h := newHarness(t, testConfig())
	big := strings.Repeat("é", 3000) // 6000 bytes
	okSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("X-Service-Signature"), "sha256=") || r.Header.Get("X-Service-Event") != model.EventEmailDeleted {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(big))
	}))
	t.Cleanup(okSrv.Close)
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: okSrv.URL, Events: []string{model.EventEmailDeleted},
		Template: &model.WebhookTemplate{Type: model.TemplateSimple}})
	var res model.TestWebhookResponse
	if status := h.call(http.MethodPost, "/api/webhooks/"+wh.ID+"/test", nil, &res); status != http.StatusOK {
		t.Fatalf("test: %d", status)
	}
	if !res.Success || res.StatusCode != 200 || res.Error != "" {
		t.Errorf("test result %+v", res)
	}
	if res.ResponseBody != "" {
		t.Errorf("the endpoint's answer body was returned: %d bytes", len(res.ResponseBody))
	}
	var simple map[string]string
	if err := json.Unmarshal(res.PayloadSent, &simple); err != nil || !strings.Contains(simple["preview"], "Deleted") {
		t.Errorf("payloadSent %s (%v)", res.PayloadSent, err)
	}
	if got := h.get("/api/webhooks/" + wh.ID); got.Stats.TotalDeliveries != 0 {
		t.Errorf("test counted in stats: %+v", got.Stats)
	}

	failing := newSink(t, http.StatusTeapot)
	wh2 := h.create("/api/webhooks", model.CreateWebhookRequest{URL: failing.URL, Events: []string{model.EventEmailReceived}})
	res = model.TestWebhookResponse{}
	h.call(http.MethodPost, "/api/webhooks/"+wh2.ID+"/test", nil, &res)
	if res.Success || res.StatusCode != http.StatusTeapot || !strings.Contains(res.Error, "418") {
		t.Errorf("failing test result %+v", res)
	}
	var env model.Event
	if err := json.Unmarshal(res.PayloadSent, &env); err != nil || env.Type != model.EventEmailReceived || !strings.HasPrefix(env.ID, "evt_") {
		t.Errorf("default payloadSent %s", res.PayloadSent)
	}

	// An endpoint that does not answer gives an error, not a hang.
	failing.Close()
	res = model.TestWebhookResponse{}
	h.call(http.MethodPost, "/api/webhooks/"+wh2.ID+"/test", nil, &res)
	if res.Success || res.Error != "delivery failed" || res.ResponseTime != 0 {
		t.Errorf("closed endpoint result %+v", res)
	}
}

func TestHandleWhenDisabledOrClosed(t *testing.T) {
	cfg := testConfig()
	cfg.Enabled = false
	h := newHarness(t, cfg)
	if h.engine.Enabled() {
		t.Fatal("Enabled() with Enabled false")
	}
	var body model.ErrorBody
	if status := h.call(http.MethodGet, "/api/webhooks", nil, &body); status != http.StatusNotFound || !strings.Contains(body.Message.String(), "disabled") {
		t.Errorf("routes with webhooks off: %d %v", status, body.Message)
	}
	h.engine.Handle(received("x", plainMail("x", "x"))) // ignored, no panic
	if err := h.engine.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.engine.Handle(received("y", plainMail("y", "y"))) // after Close: ignored
	if err := h.engine.Close(t.Context()); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
