package client_test

// Delivery tests against the real embedded server: the event stream,
// polling and subscriptions (faults: delivery_fault_test.go).

import (
	"context"
	"errors"
	"fmt"
	"net/smtp"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/client"
	"sandview/model"
	"sandview/server/servertest"
)

// fast are delivery options that keep tests quick.
func fast(strategy client.Strategy) []client.Option {
	return []client.Option{
		client.WithStrategy(strategy),
		client.WithRetries(1, 10*time.Millisecond),
		client.WithSSE(50*time.Millisecond, 3, 500*time.Millisecond),
		client.WithPolling(30*time.Millisecond, 200*time.Millisecond, 1.5, 0.3),
	}
}

func newDeliveryClient(t *testing.T, baseURL string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(baseURL, servertest.APIKey, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func createInbox(t *testing.T, c *client.Client, encryption string) *client.Inbox {
	t.Helper()
	in, err := c.CreateInbox(testCtx(t), client.CreateInboxOptions{Encryption: encryption})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// mailTo sends one plain-text mail over SMTP.
func mailTo(t testing.TB, smtpAddr, to, subject string) {
	t.Helper()
	msg := "From: \"Bob\" <bob@example.org>\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nbody of " + subject + "\r\n"
	if err := smtp.SendMail(smtpAddr, nil, "bob@example.org", []string{to}, []byte(msg)); err != nil {
		t.Fatalf("send mail over SMTP: %v", err)
	}
}

// collector records delivered emails.
type collector struct {
	mu     sync.Mutex
	emails []model.Email
	count  map[string]int
	signal chan struct{}
}

func newCollector() *collector {
	return &collector{count: map[string]int{}, signal: make(chan struct{}, 1)}
}

func (c *collector) add(e model.Email) {
	c.mu.Lock()
	c.emails = append(c.emails, e)
	c.count[e.ID]++
	c.mu.Unlock()
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

func (c *collector) snapshot() ([]model.Email, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	counts := make(map[string]int, len(c.count))
	for k, v := range c.count {
		counts[k] = v
	}
	return append([]model.Email(nil), c.emails...), counts
}

// waitSubjects waits until every subject was delivered.
func (c *collector) waitSubjects(t *testing.T, within time.Duration, subjects ...string) []model.Email {
	t.Helper()
	deadline := time.After(within)
	for {
		emails, _ := c.snapshot()
		have := map[string]bool{}
		for _, e := range emails {
			have[e.Subject] = true
		}
		missing := []string{}
		for _, s := range subjects {
			if !have[s] {
				missing = append(missing, s)
			}
		}
		if len(missing) == 0 {
			return emails
		}
		select {
		case <-c.signal:
		case <-deadline:
			t.Fatalf("not delivered within %s: %q (got %d emails)", within, missing, len(emails))
		}
	}
}

// exactlyOnce fails when an email was delivered more than once.
func (c *collector) exactlyOnce(t *testing.T) {
	t.Helper()
	_, counts := c.snapshot()
	for id, n := range counts {
		if n != 1 {
			t.Errorf("email %s delivered %d times", id, n)
		}
	}
}

// states records connection states.
type states struct {
	mu     sync.Mutex
	list   []client.ConnState
	signal chan struct{}
}

func watchStates(t *testing.T, c *client.Client) *states {
	s := &states{signal: make(chan struct{}, 1)}
	sub := c.OnStateChange(func(st client.ConnState) {
		s.mu.Lock()
		s.list = append(s.list, st)
		s.mu.Unlock()
		select {
		case s.signal <- struct{}{}:
		default:
		}
	})
	t.Cleanup(sub.Unsubscribe)
	return s
}

func (s *states) kinds() []client.StateKind {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]client.StateKind, len(s.list))
	for i, st := range s.list {
		out[i] = st.Kind
	}
	return out
}

// waitFor waits until a state with the kind was seen after the first
// `after` states.
func (s *states) waitFor(t *testing.T, kind client.StateKind, after int, within time.Duration) client.ConnState {
	t.Helper()
	deadline := time.After(within)
	for {
		s.mu.Lock()
		for i := after; i < len(s.list); i++ {
			if s.list[i].Kind == kind {
				st := s.list[i]
				s.mu.Unlock()
				return st
			}
		}
		s.mu.Unlock()
		select {
		case <-s.signal:
		case <-deadline:
			t.Fatalf("state %s not reached within %s; states: %v", kind, within, s.kinds())
		}
	}
}

func (s *states) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.list)
}

func TestStreamDeliversNewMailOnceWithContent(t *testing.T) {
	srv := servertest.Start(t)
	c := newDeliveryClient(t, srv.URL(), fast(client.StrategySSE)...)
	st := watchStates(t, c)
	for _, enc := range []string{model.EncryptionEncrypted, model.EncryptionPlain} {
		t.Run(enc, func(t *testing.T) {
			in := createInbox(t, c, enc)
			mailTo(t, srv.SMTPAddr(), in.Address(), "already there")
			waitForCount(t, in, 1)
			got := newCollector()
			sub, err := in.OnNewEmail(got.add)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Unsubscribe()
			st.waitFor(t, client.StateLive, 0, 5*time.Second)
			mailTo(t, srv.SMTPAddr(), in.Address(), "fresh "+enc)
			emails := got.waitSubjects(t, 10*time.Second, "fresh "+enc)
			e := emails[0]
			if !e.HasContent || !strings.Contains(e.Text, "body of fresh") || e.Problem != "" || e.From == "" {
				t.Fatalf("delivered email lacks content: %+v", e)
			}
			mailTo(t, srv.SMTPAddr(), in.Address(), "second "+enc)
			got.waitSubjects(t, 10*time.Second, "second "+enc)
			emails, _ = got.snapshot()
			for _, e := range emails {
				if e.Subject == "already there" {
					t.Fatal("an email that existed before subscribing was delivered")
				}
			}
			got.exactlyOnce(t)
		})
	}
}

func TestPollingDeliversTestEmails(t *testing.T) {
	srv := servertest.Start(t)
	c := newDeliveryClient(t, srv.URL(), fast(client.StrategyPolling)...)
	st := watchStates(t, c)
	in := createInbox(t, c, "")
	got := newCollector()
	sub, err := in.OnNewEmail(got.add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if s := st.waitFor(t, client.StatePolling, 0, 5*time.Second); s.Interval != 30*time.Millisecond {
		t.Fatalf("polling state interval %s", s.Interval)
	}
	for i := range 3 {
		if _, err := c.SendTestEmail(testCtx(t), model.TestEmailRequest{To: in.Address(), Subject: fmt.Sprintf("polled %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	got.waitSubjects(t, 10*time.Second, "polled 0", "polled 1", "polled 2")
	got.exactlyOnce(t)
	for _, k := range st.kinds() {
		if k == client.StateLive || k == client.StateConnecting {
			t.Fatalf("the polling strategy touched the stream: %v", st.kinds())
		}
	}
}

func TestUnsubscribeStopsDeliveryAndIsIdempotent(t *testing.T) {
	srv := servertest.Start(t)
	c := newDeliveryClient(t, srv.URL(), fast(client.StrategyAuto)...)
	in := createInbox(t, c, "")
	gone, kept := newCollector(), newCollector()
	subGone, err := in.OnNewEmail(gone.add)
	if err != nil {
		t.Fatal(err)
	}
	subKept, err := in.OnNewEmail(kept.add)
	if err != nil {
		t.Fatal(err)
	}
	defer subKept.Unsubscribe()
	c.SendTestEmail(testCtx(t), model.TestEmailRequest{To: in.Address(), Subject: "one"})
	gone.waitSubjects(t, 10*time.Second, "one")
	subGone.Unsubscribe()
	subGone.Unsubscribe()
	if _, err := c.SendTestEmail(testCtx(t), model.TestEmailRequest{To: in.Address(), Subject: "two"}); err != nil {
		t.Fatal(err)
	}
	// The other subscription proves "two" was delivered.
	kept.waitSubjects(t, 10*time.Second, "one", "two")
	if emails, _ := gone.snapshot(); len(emails) != 1 {
		t.Fatalf("delivered after unsubscribe: %d emails", len(emails))
	}
}

func TestWatchChannelClosesWithContextAndClose(t *testing.T) {
	srv := servertest.Start(t)
	c := newDeliveryClient(t, srv.URL(), fast(client.StrategyAuto)...)
	in := createInbox(t, c, model.EncryptionPlain)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := in.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.SendTestEmail(testCtx(t), model.TestEmailRequest{To: in.Address(), Subject: "via channel"})
	select {
	case e := <-ch:
		if e.Subject != "via channel" {
			t.Fatalf("got %q", e.Subject)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing on the channel")
	}
	cancel()
	waitClosed(t, ch)

	ch2, err := in.Watch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, ch2)
	if _, err := in.Watch(context.Background()); !errors.Is(err, client.ErrClientClosed) {
		t.Fatalf("Watch after Close: %v", err)
	}
	if _, err := in.OnNewEmail(func(model.Email) {}); !errors.Is(err, client.ErrClientClosed) {
		t.Fatalf("OnNewEmail after Close: %v", err)
	}
	if _, err := c.WatchInboxes(nil); !errors.Is(err, client.ErrClientClosed) {
		t.Fatalf("WatchInboxes after Close: %v", err)
	}
	if got := c.State().Kind; got != client.StateClosed {
		t.Fatalf("state after Close: %s", got)
	}
}

func waitClosed(t *testing.T, ch <-chan model.Email) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("channel not closed")
		}
	}
}

func TestMonitorSeveralInboxesAndEmptyList(t *testing.T) {
	srv := servertest.Start(t)
	c := newDeliveryClient(t, srv.URL(), fast(client.StrategySSE)...)
	empty, err := c.WatchInboxes(nil)
	if err != nil {
		t.Fatal(err)
	}
	empty.Unsubscribe()
	empty.Unsubscribe()

	a, b := createInbox(t, c, model.EncryptionEncrypted), createInbox(t, c, model.EncryptionPlain)
	m, err := c.WatchInboxes([]*client.Inbox{a, b})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	var mu sync.Mutex
	byInbox := map[string]string{}
	got := newCollector()
	m.On(func(in *client.Inbox, e model.Email) {
		mu.Lock()
		byInbox[e.Subject] = in.Address()
		mu.Unlock()
		got.add(e)
	})
	mailTo(t, srv.SMTPAddr(), a.Address(), "to a")
	c.SendTestEmail(testCtx(t), model.TestEmailRequest{To: b.Address(), Subject: "to b"})
	got.waitSubjects(t, 10*time.Second, "to a", "to b")
	mu.Lock()
	defer mu.Unlock()
	if byInbox["to a"] != a.Address() || byInbox["to b"] != b.Address() {
		t.Fatalf("events attributed to the wrong inbox: %v", byInbox)
	}
}

func TestWatchAllFollowsLoadedInboxes(t *testing.T) {
	srv := servertest.Start(t)
	c := newDeliveryClient(t, srv.URL(), fast(client.StrategyAuto)...)
	first := createInbox(t, c, "")
	m, err := c.WatchAll()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	got := newCollector()
	m.On(func(_ *client.Inbox, e model.Email) { got.add(e) })
	later := createInbox(t, c, model.EncryptionEncrypted)
	// The later inbox is seeded in the background; mail sent once it is
	// watched must arrive. Keep sending until one does (seeding is async).
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		c.SendTestEmail(testCtx(t), model.TestEmailRequest{To: later.Address(), Subject: fmt.Sprintf("later %d", i)})
		select {
		case <-got.signal:
		case <-time.After(300 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("mail of an inbox created after WatchAll never arrived")
			}
			continue
		}
		break
	}
	c.SendTestEmail(testCtx(t), model.TestEmailRequest{To: first.Address(), Subject: "first"})
	got.waitSubjects(t, 10*time.Second, "first")
	got.exactlyOnce(t)
}

func TestSyncErrorsAreReported(t *testing.T) {
	srv := servertest.Start(t)
	errs := make(chan error, 16)
	c := newDeliveryClient(t, srv.URL(), fast(client.StrategyPolling)...)
	sub := c.OnSyncError(func(err error) {
		select {
		case errs <- err:
		default:
		}
	})
	defer sub.Unsubscribe()
	in := createInbox(t, c, "")
	m, err := c.WatchInboxes([]*client.Inbox{in})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	// Delete the inbox behind the client's back: the poller's 404 must
	// surface.
	other := newDeliveryClient(t, srv.URL())
	if _, err := other.DeleteAllInboxes(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		var notFound *client.InboxNotFoundError
		if !errors.As(err, &notFound) {
			t.Fatalf("reported %v, want an inbox-not-found error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no sync error reported")
	}
}

func TestSubscribingToAnInboxNotLoadedFails(t *testing.T) {
	srv := servertest.Start(t)
	c := newDeliveryClient(t, srv.URL(), fast(client.StrategyAuto)...)
	in := createInbox(t, c, "")
	got := newCollector()
	sub, err := in.OnNewEmail(got.add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if !c.Forget(in.Address()) {
		t.Fatal("Forget")
	}
	if _, err := in.OnNewEmail(got.add); err == nil {
		t.Fatal("subscribing to a forgotten inbox worked")
	}
	// Forgetting the only watched inbox ends its watch.
	deadline := time.Now().Add(5 * time.Second)
	for c.State().Kind != client.StateIdle {
		if time.Now().After(deadline) {
			t.Fatalf("state %s after forgetting the only watched inbox", c.State())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
