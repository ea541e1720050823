package client

// Delivery figures against the real embedded server on loopback:
// SMTP-accepted → callback latency over the stream and over polling,
// memory per watched inbox, and 500 inboxes on one stream connection.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/client/internal/watch"
	"sandview/client/smtpsend"
	"sandview/internal/testproxy"
	"sandview/model"
	"sandview/server/servertest"
)

func benchClient(tb testing.TB, baseURL string, opts ...Option) *Client {
	tb.Helper()
	c, err := New(baseURL, servertest.APIKey, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// smtpAccepted sends one mail and returns when its data was complete:
// the moment the final "." goes to the server, which stores and
// announces the mail before it answers 250.
func smtpAccepted(tb testing.TB, addr, to, subject string) time.Time {
	tb.Helper()
	msg := "From: bench@example.org\r\nTo: " + to + "\r\nSubject: " + subject + "\r\n\r\nbench body\r\n"
	c, err := smtp.Dial(addr)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	if err := c.Mail("bench@example.org", nil); err != nil {
		tb.Fatal(err)
	}
	if err := c.Rcpt(to, nil); err != nil {
		tb.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write([]byte(msg)); err != nil {
		tb.Fatal(err)
	}
	sent := time.Now()
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := c.Quit(); err != nil {
		tb.Fatal(err)
	}
	return sent
}

func BenchmarkDeliveryLatency(b *testing.B) {
	for _, strategy := range []Strategy{StrategySSE, StrategyPolling} {
		for _, enc := range []string{model.EncryptionPlain, model.EncryptionEncrypted} {
			b.Run(string(strategy)+"/"+enc, func(b *testing.B) {
				srv := servertest.Start(b)
				c := benchClient(b, srv.URL(), WithStrategy(strategy),
					WithPolling(100*time.Millisecond, 100*time.Millisecond, 1, 0.3))
				// One inbox: the pollers' shared budget must not be what is
				// measured, so the engine gets a large one.
				cfg := engineConfig(c.opts)
				cfg.PollBudget = 1000
				c.engine = watch.New(c.ctx, engineClient{c}, cfg)
				in, err := c.CreateInbox(context.Background(), CreateInboxOptions{Encryption: enc})
				if err != nil {
					b.Fatal(err)
				}
				arrived := make(chan time.Time, 1)
				sub, err := in.OnNewEmail(func(model.Email) { arrived <- time.Now() })
				if err != nil {
					b.Fatal(err)
				}
				defer sub.Unsubscribe()
				for deadline := time.Now().Add(10 * time.Second); c.State().Kind != StateLive && c.State().Kind != StatePolling; {
					if time.Now().After(deadline) {
						b.Fatalf("state %s", c.State())
					}
					time.Sleep(time.Millisecond)
				}
				latencies := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := range b.N {
					accepted := smtpAccepted(b, srv.SMTPAddr(), in.Address(), fmt.Sprint("bench ", i))
					select {
					case at := <-arrived:
						latencies = append(latencies, max(at.Sub(accepted), 0))
					case <-time.After(30 * time.Second):
						b.Fatal("mail not delivered")
					}
				}
				b.StopTimer()
				slices.Sort(latencies)
				ms := func(q float64) float64 {
					return float64(latencies[int(q*float64(len(latencies)-1))]) / float64(time.Millisecond)
				}
				b.ReportMetric(ms(0.5), "p50-ms")
				b.ReportMetric(ms(0.99), "p99-ms")
			})
		}
	}
}

// BenchmarkMemoryPerWatchedInbox measures the heap held per watched inbox
// (watch state, seen set, monitor bookkeeping; the stream connection is
// shared).
func BenchmarkMemoryPerWatchedInbox(b *testing.B) {
	const n = 200
	srv := servertest.Start(b)
	c := benchClient(b, srv.URL())
	inboxes := make([]*Inbox, n)
	for k := range inboxes {
		in, err := c.CreateInbox(context.Background(), CreateInboxOptions{Encryption: model.EncryptionPlain})
		if err != nil {
			b.Fatal(err)
		}
		inboxes[k] = in
	}
	var total float64
	runs := 0
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := c.WatchInboxes(inboxes)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(m)
		total += float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
		runs++
		m.Unsubscribe()
		// The next round starts from nothing watched, the stream closed.
		deadline := time.Now().Add(10 * time.Second)
		for c.State().Kind != StateIdle {
			if time.Now().After(deadline) {
				b.Fatalf("still %v after unsubscribing", c.State().Kind)
			}
			runtime.Gosched()
		}
	}
	perInbox := total / float64(runs)
	b.ReportMetric(perInbox, "bytes/inbox")
}

// countingProxy forwards to a server and counts event-stream requests.
type countingProxy struct {
	rp      *httputil.ReverseProxy
	mu      sync.Mutex
	streams []string // inboxes query of each stream request
	open    int
}

func (p *countingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/events" {
		p.mu.Lock()
		p.streams = append(p.streams, r.URL.Query().Get("inboxes"))
		p.open++
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			p.open--
			p.mu.Unlock()
		}()
	}
	p.rp.ServeHTTP(w, r)
}

// Test500InboxesOneStream watches 500 inboxes and receives a mail for the
// last one through a single stream connection.
func Test500InboxesOneStream(t *testing.T) {
	const n = 500
	srv := servertest.Start(t)
	proxy := &countingProxy{rp: testproxy.New(t, srv.URL())}
	hs := httptest.NewServer(proxy)
	t.Cleanup(hs.Close)
	c := benchClient(t, hs.URL, WithStrategy(StrategySSE))
	ctx := context.Background()
	inboxes := make([]*Inbox, n)
	for k := range inboxes {
		in, err := c.CreateInbox(ctx, CreateInboxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inboxes[k] = in
	}
	m, err := c.WatchInboxes(inboxes)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	got := make(chan model.Email, 1)
	m.On(func(_ *Inbox, e model.Email) { got <- e })
	last := inboxes[n-1]
	mailTo := func(subject string) {
		msg := "From: a@example.org\r\nTo: " + last.Address() + "\r\nSubject: " + subject + "\r\n\r\nhi\r\n"
		if err := smtpsend.Send(context.Background(), srv.SMTPAddr(), "a@example.org", []string{last.Address()}, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for c.State().Kind != StateLive {
		if time.Now().After(deadline) {
			t.Fatalf("state %s", c.State())
		}
		time.Sleep(5 * time.Millisecond)
	}
	mailTo("to the last of 500")
	select {
	case e := <-got:
		if e.Subject != "to the last of 500" {
			t.Fatalf("got %q", e.Subject)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mail for the 500th inbox not delivered")
	}
	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	if len(proxy.streams) != 1 || proxy.open != 1 {
		t.Fatalf("%d stream requests, %d open; want one", len(proxy.streams), proxy.open)
	}
	if hashes := strings.Split(proxy.streams[0], ","); len(hashes) != n {
		t.Fatalf("the stream watches %d inboxes, want %d", len(hashes), n)
	}
}
