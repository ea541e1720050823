package watch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sandview/client"
	"sandview/internal/clienttest"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// Delivery under faults: auto fallback, reconnects across a server
// restart, a changing watch list, 429 storms. httptest appears only as a
// proxy in front of the real server, for faults a real server does not
// produce (a failing or hanging stream endpoint, 429s).

func TestAutoFallsBackToPollingAndReturnsToTheStream(t *testing.T) {
	for _, mode := range []string{"503", "hang"} {
		t.Run(mode, func(t *testing.T) {
			srv := servertest.Start(t)
			proxy := clienttest.NewEventProxy(t, srv.URL())
			proxy.Set(mode)
			var syncErrs atomic.Int64
			opts := append(clienttest.Fast(client.StrategyAuto),
				client.WithSSE(100*time.Millisecond, 2, 300*time.Millisecond),
				client.WithOnSyncError(func(error) { syncErrs.Add(1) }))
			c := clienttest.NewClient(t, proxy.URL, opts...)
			st := clienttest.WatchStates(t, c)
			in := clienttest.CreateInbox(t, c, "")
			got := clienttest.NewCollector()
			start := time.Now()
			sub, err := in.OnNewEmail(got.Add)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Unsubscribe()
			st.WaitFor(t, client.StatePolling, 0, 5*time.Second)
			if waited := time.Since(start); waited > 2*time.Second {
				t.Fatalf("fell back after %s; the connect timeout is 300ms", waited)
			}
			if syncErrs.Load() == 0 {
				t.Fatal("the fallback was not reported to OnSyncError")
			}
			clienttest.MailTo(t, srv.SMTPAddr(), in.Address(), "while polling")
			got.WaitSubjects(t, 10*time.Second, "while polling")

			// The stream heals: a probe finds it and delivery goes live.
			n := st.Len()
			proxy.Set("")
			st.WaitFor(t, client.StateLive, n, 10*time.Second)
			clienttest.MailTo(t, srv.SMTPAddr(), in.Address(), "live again")
			got.WaitSubjects(t, 10*time.Second, "live again")
			got.ExactlyOnce(t)
		})
	}
}

func TestSSEReconnectsThenFallsBackAfterMaxAttempts(t *testing.T) {
	srv := servertest.Start(t)
	proxy := clienttest.NewEventProxy(t, srv.URL())
	opts := append(clienttest.Fast(client.StrategySSE), client.WithSSE(20*time.Millisecond, 3, 500*time.Millisecond))
	c := clienttest.NewClient(t, proxy.URL, opts...)
	st := clienttest.WatchStates(t, c)
	in := clienttest.CreateInbox(t, c, "")
	got := clienttest.NewCollector()
	sub, err := in.OnNewEmail(got.Add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	st.WaitFor(t, client.StateLive, 0, 5*time.Second)
	proxy.Set("503")
	proxy.DropStreams()
	st.WaitFor(t, client.StatePolling, 0, 10*time.Second)

	// 3 reconnect attempts after the drop, with doubling delays.
	var attempts []string
	for _, s := range st.List() {
		if s.Kind == client.StateReconnecting {
			attempts = append(attempts, fmt.Sprintf("%d:%s", s.Attempt, s.Delay))
			if s.Err == nil {
				t.Error("reconnecting state without its error")
			}
		}
	}
	if want := "[1:20ms 2:40ms 3:80ms]"; fmt.Sprint(attempts) != want {
		t.Fatalf("reconnects %v, want %s", attempts, want)
	}
	if n := len(proxy.EventQueries()); n < 4 {
		t.Fatalf("%d stream requests, want the first open and 3 reconnects", n)
	}
	c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: in.Address(), Subject: "after fallback"})
	got.WaitSubjects(t, 10*time.Second, "after fallback")
}

func TestWatchListChangeReconnectsWithTheNewList(t *testing.T) {
	srv := servertest.Start(t)
	proxy := clienttest.NewEventProxy(t, srv.URL())
	c := clienttest.NewClient(t, proxy.URL, clienttest.Fast(client.StrategySSE)...)
	st := clienttest.WatchStates(t, c)
	a, b := clienttest.CreateInbox(t, c, ""), clienttest.CreateInbox(t, c, "")
	subA, err := a.OnNewEmail(func(model.Email) {})
	if err != nil {
		t.Fatal(err)
	}
	st.WaitFor(t, client.StateLive, 0, 5*time.Second)
	got := clienttest.NewCollector()
	subB, err := b.OnNewEmail(got.Add)
	if err != nil {
		t.Fatal(err)
	}
	waitQuery := func(want string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			q := proxy.EventQueries()
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
	c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: b.Address(), Subject: "for b"})
	got.WaitSubjects(t, 10*time.Second, "for b")
	subA.Unsubscribe()
	waitQuery(b.Hash())
	n := st.Len()
	subB.Unsubscribe()
	st.WaitFor(t, client.StateIdle, n, 5*time.Second)
	for _, k := range st.Kinds() {
		if k == client.StateReconnecting {
			t.Fatalf("a list change counted as a failure: %v", st.Kinds())
		}
	}
}

func TestServerRestartMidStreamDeliversEveryMailOnce(t *testing.T) {
	dir := t.TempDir()
	srv := servertest.Start(t, func(cfg *server.Config) { cfg.DataDir = dir })
	httpAddr, smtpAddr := srv.HTTPAddr(), srv.SMTPAddr()
	opts := append(clienttest.Fast(client.StrategySSE), client.WithSSE(300*time.Millisecond, 10, time.Second))
	c := clienttest.NewClient(t, srv.URL(), opts...)
	st := clienttest.WatchStates(t, c)
	in := clienttest.CreateInbox(t, c, model.EncryptionEncrypted)
	got := clienttest.NewCollector()
	sub, err := in.OnNewEmail(got.Add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	st.WaitFor(t, client.StateLive, 0, 5*time.Second)
	clienttest.MailTo(t, smtpAddr, in.Address(), "before restart")
	got.WaitSubjects(t, 10*time.Second, "before restart")

	n := st.Len()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	st.WaitFor(t, client.StateReconnecting, n, 5*time.Second)
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
		clienttest.MailTo(t, srv2.SMTPAddr(), in.Address(), fmt.Sprintf("while reconnecting %d", i))
	}
	st.WaitFor(t, client.StateLive, n, 10*time.Second)
	clienttest.MailTo(t, srv2.SMTPAddr(), in.Address(), "after restart")
	got.WaitSubjects(t, 10*time.Second, "before restart", "while reconnecting 0", "while reconnecting 1", "while reconnecting 2", "after restart")
	got.ExactlyOnce(t)
	if emails, _ := got.Snapshot(); len(emails) != 5 {
		t.Fatalf("%d deliveries, want 5", len(emails))
	}
}

func TestPollingHonoursRetryAfterForAllInboxes(t *testing.T) {
	srv := servertest.Start(t)
	proxy := clienttest.NewEventProxy(t, srv.URL())
	var errs atomic.Int64
	var limited atomic.Int64
	opts := append(clienttest.Fast(client.StrategyPolling), client.WithOnSyncError(func(err error) {
		errs.Add(1)
		var rl *client.RateLimitedError
		if errors.As(err, &rl) {
			limited.Add(1)
		}
	}))
	c := clienttest.NewClient(t, proxy.URL, opts...)
	inboxes := []*client.Inbox{clienttest.CreateInbox(t, c, ""), clienttest.CreateInbox(t, c, ""), clienttest.CreateInbox(t, c, "")}
	proxy.SetSyncStatus(http.StatusTooManyRequests)
	m, err := c.WatchInboxes(inboxes)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	// Wait for the first 429 and for polling to resume after it.
	syncTimes := proxy.SyncTimes
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
	proxy.SetSyncStatus(0)
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
	got := clienttest.NewCollector()
	m.On(func(_ *client.Inbox, e model.Email) { got.Add(e) })
	c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: inboxes[2].Address(), Subject: "after the limit"})
	got.WaitSubjects(t, 10*time.Second, "after the limit")
}
