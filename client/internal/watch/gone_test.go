package watch_test

import (
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"sandview/client"
	"sandview/internal/clienttest"
	"sandview/model"
	"sandview/server/servertest"
)

// Inboxes the server no longer knows: their watch ends, they are not
// retried, and the other inboxes keep streaming.

// deleteOnServer deletes an inbox behind the client's back, as another
// program (or a server restart without persistence) would.
func deleteOnServer(t *testing.T, baseURL, address string) {
	t.Helper()
	req, err := http.NewRequestWithContext(clienttest.Ctx(t), http.MethodDelete, baseURL+"/api/inboxes/"+address, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", servertest.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("delete %s on the server: %s", address, resp.Status)
	}
}

// goneRecorder records the inboxes a monitor reports gone, how often,
// and those that are ready (delivering).
type goneRecorder struct {
	mu      sync.Mutex
	gone    map[string]error
	reports int
	ready   map[string]bool
	signal  chan struct{}
}

// watchGone watches every inbox of c and records those reported gone;
// first, before any handler, each of early is given the monitor, so that
// a handler it adds sees every event (the monitor's queue hands an event
// only to the handlers added by then).
func watchGone(t *testing.T, c *client.Client, early ...func(*client.Monitor)) (*client.Monitor, *goneRecorder) {
	t.Helper()
	mon, err := c.WatchAll()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mon.Unsubscribe)
	for _, add := range early {
		add(mon)
	}
	r := &goneRecorder{gone: map[string]error{}, ready: map[string]bool{}, signal: make(chan struct{}, 1)}
	// OnReady next: the monitor hands the events held so far to the
	// handlers there are when the first one is added.
	mon.OnReady(func(in *client.Inbox) {
		r.mu.Lock()
		r.ready[in.Address()] = true
		r.mu.Unlock()
		r.notify()
	})
	mon.OnGone(func(in *client.Inbox, err error) {
		r.mu.Lock()
		r.gone[in.Address()] = err
		r.reports++
		r.mu.Unlock()
		r.notify()
	})
	return mon, r
}

func (r *goneRecorder) notify() {
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

// until waits until cond (called with r.mu held) holds.
func (r *goneRecorder) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.signal:
		case <-deadline:
			t.Fatal(what)
		}
	}
}

// wait waits until address is reported gone and returns why.
func (r *goneRecorder) wait(t *testing.T, address string) error {
	t.Helper()
	var err error
	r.until(t, address+" was not reported gone", func() bool {
		var ok bool
		err, ok = r.gone[address]
		return ok
	})
	return err
}

// waitReady waits until every inbox delivers: WatchAll lists them in the
// background, and mail that arrives before an inbox's listing is taken
// for mail that was there already.
func (r *goneRecorder) waitReady(t *testing.T, inboxes ...*client.Inbox) {
	t.Helper()
	for _, in := range inboxes {
		r.until(t, in.Address()+" was not ready", func() bool { return r.ready[in.Address()] })
	}
}

// count returns how many times an inbox was reported gone.
func (r *goneRecorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reports
}

// TestInboxDeletedOnTheServerIsGone deletes one of two watched inboxes on
// the server and drops the stream: the deletion notice or the reconnect's
// sync finds it gone (once), the stream reopens for the other alone, which
// keeps receiving mail.
func TestInboxDeletedOnTheServerIsGone(t *testing.T) {
	srv := servertest.Start(t)
	proxy := clienttest.NewEventProxy(t, srv.URL())
	c := clienttest.NewClient(t, proxy.URL, clienttest.Fast(client.StrategySSE)...)
	st := clienttest.WatchStates(t, c)
	a, b := clienttest.CreateInbox(t, c, ""), clienttest.CreateInbox(t, c, "")
	mon, gone := watchGone(t, c)
	got := clienttest.NewCollector()
	mon.On(func(_ *client.Inbox, e model.Email) { got.Add(e) })
	gone.waitReady(t, a, b)
	st.WaitFor(t, client.StateLive, 0, 5*time.Second)
	// Live was shown for the first open; the stream for both is open or
	// opening now, so a request for b alone comes only once a is gone.
	before := len(proxy.EventQueries())

	deleteOnServer(t, srv.URL(), a.Address())
	proxy.DropStreams()
	var notFound *client.InboxNotFoundError
	if err := gone.wait(t, a.Address()); !errors.As(err, &notFound) {
		t.Fatalf("gone because of %v, want the inbox not found", err)
	}
	// Mail sent before the stream was reopened could still arrive on the
	// stream for both: wait for the reopen.
	proxy.WaitQuery(t, b.Hash(), before, 10*time.Second)
	clienttest.MailTo(t, srv.SMTPAddr(), b.Address(), "still streaming")
	got.WaitSubjects(t, 10*time.Second, "still streaming")
	queries := proxy.EventQueries()
	if last := queries[len(queries)-1]; last != b.Hash() {
		t.Fatalf("the stream reopened for %q, want %s alone", last, b.Hash())
	}
	if gone.count() != 1 {
		t.Fatalf("inboxes reported gone %d times, want once", gone.count())
	}
}

// TestListingAnInboxThatIsGoneEndsItsWatch lists an inbox deleted on the
// server (as the TUI does on r): the answer ends its watch at once,
// without waiting for a reconnect.
func TestListingAnInboxThatIsGoneEndsItsWatch(t *testing.T) {
	srv := servertest.Start(t)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategySSE)...)
	st := clienttest.WatchStates(t, c)
	a := clienttest.CreateInbox(t, c, "")
	_, gone := watchGone(t, c)
	st.WaitFor(t, client.StateLive, 0, 5*time.Second)
	deleteOnServer(t, srv.URL(), a.Address())
	if _, err := a.Emails(clienttest.Ctx(t), client.ListOptions{}); err == nil {
		t.Fatal("listing a deleted inbox succeeded")
	}
	gone.wait(t, a.Address())
	st.WaitIdle(t, c)
}

// TestStreamRefusedForUnknownHashesIsNotRetried plays a deployment that
// restarted and lost its inboxes: the stream answers 400 "No matching
// inbox hashes" and the inbox lists 404. The inbox is gone at once: no
// reconnect is scheduled and the stream is asked once.
func TestStreamRefusedForUnknownHashesIsNotRetried(t *testing.T) {
	srv := servertest.Start(t)
	proxy := clienttest.NewEventProxy(t, srv.URL())
	proxy.Set("400")
	c := clienttest.NewClient(t, proxy.URL, clienttest.Fast(client.StrategySSE)...)
	st := clienttest.WatchStates(t, c)
	a := clienttest.CreateInbox(t, c, "")
	deleteOnServer(t, srv.URL(), a.Address())
	_, gone := watchGone(t, c)
	gone.wait(t, a.Address())
	st.WaitIdle(t, c)
	if kinds := st.Kinds(); slices.Contains(kinds, client.StateReconnecting) || slices.Contains(kinds, client.StatePolling) {
		t.Fatalf("a refused stream was retried: %v", st.Kinds())
	}
	if n := len(proxy.EventQueries()); n > 1 {
		t.Fatalf("the stream was asked %d times", n)
	}
}

// TestStreamRefusedWithKnownInboxesPolls refuses the stream (400) while
// the inbox exists: nothing is gone, the refusal is not retried with
// backoff, mail is polled for instead.
//
// The mail is sent once the watch is ready (OnReady), not merely once the
// engine polls: WatchAll takes its baseline (the ids that exist) in the
// background, and the fallback to polling can come first, so mail sent
// between the two belongs to the baseline and is, rightly, never
// delivered as new (the test failed so under load). A watch that is
// ready misses nothing across the fallback: its first poll lists the
// inbox and delivers every id not in its seen set.
func TestStreamRefusedWithKnownInboxesPolls(t *testing.T) {
	srv := servertest.Start(t)
	proxy := clienttest.NewEventProxy(t, srv.URL())
	proxy.Set("400")
	c := clienttest.NewClient(t, proxy.URL, clienttest.Fast(client.StrategySSE)...)
	st := clienttest.WatchStates(t, c)
	a := clienttest.CreateInbox(t, c, "")
	ready := make(chan struct{})
	var once sync.Once
	got := clienttest.NewCollector()
	_, gone := watchGone(t, c, func(mon *client.Monitor) {
		mon.OnReady(func(in *client.Inbox) {
			if in.Address() == a.Address() {
				once.Do(func() { close(ready) })
			}
		})
		mon.On(func(_ *client.Inbox, e model.Email) { got.Add(e) })
	})
	st.WaitFor(t, client.StatePolling, 0, 5*time.Second)
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch never became ready")
	}
	clienttest.MailTo(t, srv.SMTPAddr(), a.Address(), "polled")
	got.WaitSubjects(t, 10*time.Second, "polled")
	if slices.Contains(st.Kinds(), client.StateReconnecting) {
		t.Fatalf("a refused stream was retried: %v", st.Kinds())
	}
	if gone.count() != 0 {
		t.Fatal("an inbox the server knows was reported gone")
	}
}

// TestReconnectCutsTheWaitShort has the stream fail with an hour between
// attempts: Reconnect starts the next attempt at once.
func TestReconnectCutsTheWaitShort(t *testing.T) {
	srv := servertest.Start(t)
	proxy := clienttest.NewEventProxy(t, srv.URL())
	opts := append(clienttest.Fast(client.StrategySSE), client.WithSSE(time.Hour, 3, 500*time.Millisecond))
	c := clienttest.NewClient(t, proxy.URL, opts...)
	st := clienttest.WatchStates(t, c)
	a := clienttest.CreateInbox(t, c, "")
	if _, err := a.OnNewEmail(func(model.Email) {}); err != nil {
		t.Fatal(err)
	}
	st.WaitFor(t, client.StateLive, 0, 5*time.Second)
	proxy.Set("503")
	proxy.DropStreams()
	n := st.Len()
	rec := st.WaitFor(t, client.StateReconnecting, n, 5*time.Second)
	if rec.Delay != time.Hour {
		t.Fatalf("reconnect in %s, want an hour", rec.Delay)
	}
	proxy.Set("")
	c.Reconnect()
	st.WaitFor(t, client.StateLive, n, 5*time.Second)
}
