// Package clienttest holds the helpers shared by the tests of the client
// and of its watch engine, which run against the real embedded server:
// fast delivery options, inboxes, mail over SMTP, collectors of delivered
// mail and of connection states, and a fault proxy for the event stream.
package clienttest

import (
	"context"
	"sync"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server/servertest"
)

// Fast are delivery options that keep tests quick.
func Fast(strategy client.Strategy) []client.Option {
	return []client.Option{
		client.WithStrategy(strategy),
		client.WithRetries(1, 10*time.Millisecond),
		client.WithSSE(50*time.Millisecond, 3, 500*time.Millisecond),
		client.WithPolling(30*time.Millisecond, 200*time.Millisecond, 1.5, 0.3),
	}
}

// NewClient returns a client of the service at baseURL, closed when the
// test ends.
func NewClient(t *testing.T, baseURL string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(baseURL, servertest.APIKey, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// CreateInbox creates an inbox with the encryption ("encrypted", "plain").
func CreateInbox(t *testing.T, c *client.Client, encryption string) *client.Inbox {
	t.Helper()
	in, err := c.CreateInbox(Ctx(t), client.CreateInboxOptions{Encryption: encryption})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// MailTo sends one plain-text mail over SMTP.
func MailTo(t testing.TB, smtpAddr, to, subject string) {
	t.Helper()
	msg := "From: \"Bob\" <bob@example.org>\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nbody of " + subject + "\r\n"
	if err := smtpsend.Send(context.Background(), smtpAddr, "bob@example.org", []string{to}, []byte(msg)); err != nil {
		t.Fatalf("send mail over SMTP: %v", err)
	}
}

// Collector records delivered emails.
type Collector struct {
	mu     sync.Mutex
	emails []model.Email
	count  map[string]int
	signal chan struct{}
}

// NewCollector returns an empty collector.
func NewCollector() *Collector {
	return &Collector{count: map[string]int{}, signal: make(chan struct{}, 1)}
}

// Add records a delivered email (pass it as the delivery callback).
func (c *Collector) Add(e model.Email) {
	c.mu.Lock()
	c.emails = append(c.emails, e)
	c.count[e.ID]++
	c.mu.Unlock()
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// Snapshot returns the emails delivered so far and how often each id was.
func (c *Collector) Snapshot() ([]model.Email, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	counts := make(map[string]int, len(c.count))
	for k, v := range c.count {
		counts[k] = v
	}
	return append([]model.Email(nil), c.emails...), counts
}

// WaitSubjects waits until every subject was delivered.
func (c *Collector) WaitSubjects(t *testing.T, within time.Duration, subjects ...string) []model.Email {
	t.Helper()
	deadline := time.After(within)
	for {
		emails, _ := c.Snapshot()
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

// ExactlyOnce fails when an email was delivered more than once.
func (c *Collector) ExactlyOnce(t *testing.T) {
	t.Helper()
	_, counts := c.Snapshot()
	for id, n := range counts {
		if n != 1 {
			t.Errorf("email %s delivered %d times", id, n)
		}
	}
}

// States records connection states.
type States struct {
	mu     sync.Mutex
	list   []client.ConnState
	signal chan struct{}
}

// WatchStates records the client's connection states until the test ends.
func WatchStates(t *testing.T, c *client.Client) *States {
	s := &States{signal: make(chan struct{}, 1)}
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

// Kinds returns the kinds of the states seen so far.
func (s *States) Kinds() []client.StateKind {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]client.StateKind, len(s.list))
	for i, st := range s.list {
		out[i] = st.Kind
	}
	return out
}

// WaitFor waits until a state with the kind was seen after the first
// `after` states.
func (s *States) WaitFor(t *testing.T, kind client.StateKind, after int, within time.Duration) client.ConnState {
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
			t.Fatalf("state %s not reached within %s; states: %v", kind, within, s.Kinds())
		}
	}
}

// Len returns how many states were seen.
func (s *States) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.list)
}

// WaitIdle waits until the client watches nothing and says so.
func (s *States) WaitIdle(t *testing.T, c *client.Client) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for c.State().Kind != client.StateIdle {
		select {
		case <-s.signal:
		case <-deadline:
			t.Fatalf("not idle; states: %v", s.Kinds())
		}
	}
}

// Ctx is a context for one test: it ends after 30 s or with the test.
func Ctx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// List returns the states seen so far.
func (s *States) List() []client.ConnState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]client.ConnState(nil), s.list...)
}

// Signal receives a token after emails were delivered.
func (c *Collector) Signal() <-chan struct{} { return c.signal }

// WaitForCount polls the sync status until the inbox holds n emails.
func WaitForCount(t *testing.T, in *client.Inbox, n int) model.SyncStatus {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		st, err := in.SyncStatus(Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if st.EmailCount == n {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("inbox holds %d emails, want %d", st.EmailCount, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
