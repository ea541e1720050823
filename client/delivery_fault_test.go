package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandview/client"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// Delivery under faults: auto fallback, reconnects across a server
// restart, a changing watch list, 429 storms. httptest appears only as a
// proxy in front of the real server, for faults a real server does not
// produce (a failing or hanging stream endpoint, 429s).

// eventProxy is a reverse proxy in front of a real server whose
// /api/events can be made to fail, and which records the stream requests.
type eventProxy struct {
	*httptest.Server
	rp      *httputil.ReverseProxy
	mu      sync.Mutex
	mode    string // "", "503", "400" or "hang"
	queries []string
	syncs   atomic.Int64
	// syncStatus, when non-zero, is answered to /sync requests.
	syncStatus int
	syncTimes  []time.Time
	streams    []context.CancelFunc
}

func newEventProxy(t *testing.T, target string) *eventProxy {
	p := &eventProxy{rp: client.NewTestProxy(t, target)}
	p.Server = httptest.NewServer(p)
	t.Cleanup(p.Close)
	return p
}

func (p *eventProxy) set(mode string) {
	p.mu.Lock()
	p.mode = mode
	p.mu.Unlock()
}

// dropStreams ends every open event stream.
func (p *eventProxy) dropStreams() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cancel := range p.streams {
		cancel()
	}
	p.streams = nil
}

func (p *eventProxy) eventQueries() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.queries...)
}

func (p *eventProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	mode, syncStatus := p.mode, p.syncStatus
	if r.URL.Path == "/api/events" {
		p.queries = append(p.queries, r.URL.Query().Get("inboxes"))
	}
	if strings.HasSuffix(r.URL.Path, "/sync") {
		p.syncTimes = append(p.syncTimes, time.Now())
	}
	p.mu.Unlock()
	if strings.HasSuffix(r.URL.Path, "/sync") {
		p.syncs.Add(1)
		if syncStatus != 0 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(syncStatus)
			fmt.Fprintf(w, `{"statusCode":%d,"message":"slow down"}`, syncStatus)
			return
		}
	}
	if r.URL.Path == "/api/events" {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		r = r.WithContext(ctx)
		p.mu.Lock()
		p.streams = append(p.streams, cancel)
		p.mu.Unlock()
		switch mode {
		case "503":
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"statusCode":503,"message":"stream unavailable","error":"Service Unavailable"}`)
			return
		case "hang":
			<-r.Context().Done()
			return
		case "400": // a deployment that knows none of the hashes
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"statusCode":400,"message":"No matching inbox hashes","error":"Bad Request"}`)
			return
		}
	}
	p.rp.ServeHTTP(w, r)
}

func TestAutoFallsBackToPollingAndReturnsToTheStream(t *testing.T) {
	for _, mode := range []string{"503", "hang"} {
		t.Run(mode, func(t *testing.T) {
			srv := servertest.Start(t)
			proxy := newEventProxy(t, srv.URL())
			proxy.set(mode)
			var syncErrs atomic.Int64
			opts := append(fast(client.StrategyAuto),
				client.WithSSE(100*time.Millisecond, 2, 300*time.Millisecond),
				client.WithOnSyncError(func(error) { syncErrs.Add(1) }))
			c := newDeliveryClient(t, proxy.URL, opts...)
			st := watchStates(t, c)
			in := createInbox(t, c, "")
			got := newCollector()
			start := time.Now()
			sub, err := in.OnNewEmail(got.add)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Unsubscribe()
			st.waitFor(t, client.StatePolling, 0, 5*time.Second)
			if waited := time.Since(start); waited > 2*time.Second {
				t.Fatalf("fell back after %s; the connect timeout is 300ms", waited)
			}
			if syncErrs.Load() == 0 {
				t.Fatal("the fallback was not reported to OnSyncError")
			}
			mailTo(t, srv.SMTPAddr(), in.Address(), "while polling")
			got.waitSubjects(t, 10*time.Second, "while polling")

			// The stream heals: a probe finds it and delivery goes live.
			n := st.len()
			proxy.set("")
			st.waitFor(t, client.StateLive, n, 10*time.Second)
			mailTo(t, srv.SMTPAddr(), in.Address(), "live again")
			got.waitSubjects(t, 10*time.Second, "live again")
			got.exactlyOnce(t)
		})
	}
}

func TestSSEReconnectsThenFallsBackAfterMaxAttempts(t *testing.T) {
	srv := servertest.Start(t)
	proxy := newEventProxy(t, srv.URL())
	opts := append(fast(client.StrategySSE), client.WithSSE(20*time.Millisecond, 3, 500*time.Millisecond))
	c := newDeliveryClient(t, proxy.URL, opts...)
	st := watchStates(t, c)
	in := createInbox(t, c, "")
	got := newCollector()
	sub, err := in.OnNewEmail(got.add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	st.waitFor(t, client.StateLive, 0, 5*time.Second)
	proxy.set("503")
	proxy.dropStreams()
	st.waitFor(t, client.StatePolling, 0, 10*time.Second)

	// 3 reconnect attempts after the drop, with doubling delays.
	var attempts []string
	st.mu.Lock()
	for _, s := range st.list {
		if s.Kind == client.StateReconnecting {
			attempts = append(attempts, fmt.Sprintf("%d:%s", s.Attempt, s.Delay))
			if s.Err == nil {
				t.Error("reconnecting state without its error")
			}
		}
	}
	st.mu.Unlock()
	if want := "[1:20ms 2:40ms 3:80ms]"; fmt.Sprint(attempts) != want {
		t.Fatalf("reconnects %v, want %s", attempts, want)
	}
	if n := len(proxy.eventQueries()); n < 4 {
		t.Fatalf("%d stream requests, want the first open and 3 reconnects", n)
	}
	c.SendTestEmail(testCtx(t), model.TestEmailRequest{To: in.Address(), Subject: "after fallback"})
	got.waitSubjects(t, 10*time.Second, "after fallback")
}

func TestWatchListChangeReconnectsWithTheNewList(t *testing.T) {
	srv := servertest.Start(t)
	proxy := newEventProxy(t, srv.URL())
	c := newDeliveryClient(t, proxy.URL, fast(client.StrategySSE)...)
	st := watchStates(t, c)
	a, b := createInbox(t, c, ""), createInbox(t, c, "")
	subA, err := a.OnNewEmail(func(model.Email) {})
	if err != nil {
		t.Fatal(err)
	}
	st.waitFor(t, client.StateLive, 0, 5*time.Second)
	got := newCollector()
	subB, err := b.OnNewEmail(got.add)
	if err != nil {
		t.Fatal(err)
	}
	waitQuery := func(want string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			q := proxy.eventQueries()
			if len(q) > 0 && q[len(q)-1] == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("stream queries %q, want last %q", q, want)
			}
			time.Sleep(5 * time.Millisecond) // polling a condition with a deadline
		}
	}
	both := []string{a.Hash(), b.Hash()}
	if both[0] > both[1] {
		both[0], both[1] = both[1], both[0]
	}
	waitQuery(strings.Join(both, ","))
	c.SendTestEmail(testCtx(t), model.TestEmailRequest{To: b.Address(), Subject: "for b"})
	got.waitSubjects(t, 10*time.Second, "for b")
	subA.Unsubscribe()
	waitQuery(b.Hash())
	n := st.len()
	subB.Unsubscribe()
	st.waitFor(t, client.StateIdle, n, 5*time.Second)
	for _, k := range st.kinds() {
		if k == client.StateReconnecting {
			t.Fatalf("a list change counted as a failure: %v", st.kinds())
		}
	}
}

func TestServerRestartMidStreamDeliversEveryMailOnce(t *testing.T) {
	dir := t.TempDir()
	srv := servertest.Start(t, func(cfg *server.Config) { cfg.DataDir = dir })
	httpAddr, smtpAddr := srv.HTTPAddr(), srv.SMTPAddr()
	opts := append(fast(client.StrategySSE), client.WithSSE(300*time.Millisecond, 10, time.Second))
	c := newDeliveryClient(t, srv.URL(), opts...)
	st := watchStates(t, c)
	in := createInbox(t, c, model.EncryptionEncrypted)
	got := newCollector()
	sub, err := in.OnNewEmail(got.add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	st.waitFor(t, client.StateLive, 0, 5*time.Second)
	mailTo(t, smtpAddr, in.Address(), "before restart")
	got.waitSubjects(t, 10*time.Second, "before restart")

	n := st.len()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	st.waitFor(t, client.StateReconnecting, n, 5*time.Second)
	srv2 := servertest.Start(t, func(cfg *server.Config) {
		cfg.DataDir, cfg.HTTPAddr, cfg.SMTPAddr = dir, httpAddr, smtpAddr
	})
	// The client stops before srv2 does: a client reconnecting while the
	// server shuts down can open a connection that carries no request yet,
	// which holds up the server's graceful shutdown for 5 s.
	t.Cleanup(func() { _ = c.Close() })
	// Sent before the client's next reconnect: only the sync after the
	// reconnect can find these.
	for i := range 3 {
		mailTo(t, srv2.SMTPAddr(), in.Address(), fmt.Sprintf("while reconnecting %d", i))
	}
	st.waitFor(t, client.StateLive, n, 10*time.Second)
	mailTo(t, srv2.SMTPAddr(), in.Address(), "after restart")
	got.waitSubjects(t, 10*time.Second, "before restart", "while reconnecting 0", "while reconnecting 1", "while reconnecting 2", "after restart")
	got.exactlyOnce(t)
	if emails, _ := got.snapshot(); len(emails) != 5 {
		t.Fatalf("%d deliveries, want 5", len(emails))
	}
}

func TestPollingHonoursRetryAfterForAllInboxes(t *testing.T) {
	srv := servertest.Start(t)
	proxy := newEventProxy(t, srv.URL())
	var errs atomic.Int64
	var limited atomic.Int64
	opts := append(fast(client.StrategyPolling), client.WithOnSyncError(func(err error) {
		errs.Add(1)
		var rl *client.RateLimitedError
		if errors.As(err, &rl) {
			limited.Add(1)
		}
	}))
	c := newDeliveryClient(t, proxy.URL, opts...)
	inboxes := []*client.Inbox{createInbox(t, c, ""), createInbox(t, c, ""), createInbox(t, c, "")}
	proxy.mu.Lock()
	proxy.syncStatus = http.StatusTooManyRequests
	proxy.mu.Unlock()
	m, err := c.WatchInboxes(inboxes)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	// Wait for the first 429 and for polling to resume after it.
	syncTimes := func() []time.Time {
		proxy.mu.Lock()
		defer proxy.mu.Unlock()
		return append([]time.Time(nil), proxy.syncTimes...)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		times := syncTimes()
		if len(times) > 0 && times[len(times)-1].Sub(times[0]) >= 500*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("polling did not resume after the 429: %d requests", len(times))
		}
		time.Sleep(5 * time.Millisecond)
	}
	proxy.mu.Lock()
	proxy.syncStatus = 0
	proxy.mu.Unlock()
	// After the first 429 every poller paused for Retry-After (1 s): only
	// requests already in flight reached the server in that second.
	times := syncTimes()
	inPause := 0
	for _, at := range times[1:] {
		if at.Sub(times[0]) < 900*time.Millisecond {
			inPause++
		}
	}
	if inPause >= len(inboxes) {
		t.Fatalf("%d sync requests during the Retry-After pause", inPause)
	}
	if limited.Load() == 0 {
		t.Fatal("the 429 was not reported")
	}
	got := newCollector()
	m.On(func(_ *client.Inbox, e model.Email) { got.add(e) })
	c.SendTestEmail(testCtx(t), model.TestEmailRequest{To: inboxes[2].Address(), Subject: "after the limit"})
	got.waitSubjects(t, 10*time.Second, "after the limit")
}
