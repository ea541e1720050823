package conformance_test

import (
	"context"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server/servertest"
)

// target is the server the integration and end-to-end groups run
// against: external (SERVICE_URL, SERVICE_API_KEY, SMTP_HOST, SMTP_PORT)
// or the embedded server started for the test.
type target struct {
	url, apiKey string
	smtpAddr    string // "" when no SMTP host is configured
	external    bool
}

// integrationTarget returns the server for an integration test.
func integrationTarget(t *testing.T) target {
	t.Helper()
	url, key := os.Getenv("SERVICE_URL"), os.Getenv("SERVICE_API_KEY")
	if url == "" {
		srv := servertest.Start(t)
		return target{url: srv.URL(), apiKey: servertest.APIKey, smtpAddr: srv.SMTPAddr()}
	}
	if key == "" {
		t.Skip("SERVICE_URL is set but SERVICE_API_KEY is not: integration tests need an API key")
	}
	tg := target{url: url, apiKey: key, external: true}
	if host := os.Getenv("SMTP_HOST"); host != "" {
		port := os.Getenv("SMTP_PORT")
		if port == "" {
			port = "25"
		}
		tg.smtpAddr = net.JoinHostPort(host, port)
	}
	return tg
}

// e2eTarget returns the server for an end-to-end test (with SMTP).
func e2eTarget(t *testing.T) target {
	t.Helper()
	tg := integrationTarget(t)
	if tg.smtpAddr == "" {
		t.Skip("SMTP_HOST is not set: end-to-end tests need an SMTP host")
	}
	return tg
}

// newClient returns a client for the target with quick delivery settings.
func (tg target) newClient(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	base := []client.Option{
		client.WithSSE(100*time.Millisecond, 5, 2*time.Second),
		client.WithPolling(100*time.Millisecond, time.Second, 1.5, 0.3),
	}
	c, err := client.New(tg.url, tg.apiKey, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// newInbox creates an inbox that is deleted when the test ends.
func newInbox(t *testing.T, c *client.Client, encryption string) *client.Inbox {
	t.Helper()
	in, err := c.CreateInbox(ctx(t), client.CreateInboxOptions{Encryption: encryption})
	if err != nil {
		t.Fatal(err)
	}
	address := in.Address()
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.DeleteInbox(cctx, address) // may be closed or deleted already
	})
	return in
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// testEmail creates a mail through the test-email endpoint.
func testEmail(t *testing.T, c *client.Client, to, subject string) {
	t.Helper()
	if _, err := c.SendTestEmail(ctx(t), model.TestEmailRequest{To: to, Subject: subject, Text: "body of " + subject}); err != nil {
		t.Fatal(err)
	}
}

// smtpEmail sends a mail over SMTP.
func (tg target) smtpEmail(t *testing.T, to, subject string) {
	t.Helper()
	msg := "From: \"Conformance\" <conformance@example.org>\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nbody of " + subject + "\r\n"
	if err := smtpsend.Send(context.Background(), tg.smtpAddr, "conformance@example.org", []string{to}, []byte(msg)); err != nil {
		t.Fatalf("send over SMTP to %s: %v", tg.smtpAddr, err)
	}
}

// inbox collects delivered emails by subject.
type received struct {
	mu       sync.Mutex
	subjects map[string]int
	signal   chan struct{}
}

// subscribeTwice subscribes two callbacks to in: sub, to be unsubscribed by
// the test, feeding stopped, and a witness that stays subscribed until the
// test ends.
func subscribeTwice(t *testing.T, in *client.Inbox) (stopped, witness *received, sub client.Subscription) {
	t.Helper()
	stopped, witness = newReceived(), newReceived()
	sub, err := in.OnNewEmail(stopped.add)
	if err != nil {
		t.Fatal(err)
	}
	other, err := in.OnNewEmail(witness.add)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Unsubscribe)
	return stopped, witness, sub
}

func newReceived() *received {
	return &received{subjects: map[string]int{}, signal: make(chan struct{}, 1)}
}

func (r *received) add(e model.Email) {
	r.mu.Lock()
	r.subjects[e.Subject]++
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

func (r *received) count(subject string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.subjects[subject]
}

// await waits until every subject arrived.
func (r *received) await(t *testing.T, subjects ...string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		missing := ""
		for _, s := range subjects {
			if r.count(s) == 0 {
				missing = s
				break
			}
		}
		if missing == "" {
			return
		}
		select {
		case <-r.signal:
		case <-deadline:
			t.Fatalf("%q was not delivered", missing)
		}
	}
}
