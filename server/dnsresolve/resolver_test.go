package dnsresolve_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"sandview/server/dnsresolve"
	"sandview/server/dnsresolve/dnstest"
)

// zone is what the test servers serve.
var zone = []string{
	`example.org. 300 IN TXT "v=spf1 ip4:192.0.2.0/24 " "include:_spf.example.net -all"`,
	`example.org. 300 IN TXT "google-site-verification=abc"`,
	`example.org. 300 IN MX 20 mx2.example.org.`,
	`example.org. 300 IN MX 10 mx1.example.org.`,
	`mx1.example.org. 300 IN A 192.0.2.10`,
	`mx1.example.org. 300 IN AAAA 2001:db8::10`,
	`mx2.example.org. 300 IN A 192.0.2.11`,
	`v6only.example.org. 300 IN AAAA 2001:db8::20`,
	`alias.example.org. 300 IN CNAME mx2.example.org.`,
	`10.2.0.192.in-addr.arpa. 300 IN PTR mx1.example.org.`,
	`_dmarc.example.org. 300 IN TXT "v=DMARC1; p=reject"`,
}

// newResolver makes a resolver asking servers, with a hosts file of its
// own (hosts lines) and fast timeouts.
func newResolver(t *testing.T, cfg dnsresolve.Config, hosts ...string) *dnsresolve.Resolver {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(path, []byte(strings.Join(hosts, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.HostsFile = path
	if cfg.QueryTimeout == 0 {
		cfg.QueryTimeout = 2 * time.Second
	}
	r, err := dnsresolve.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// errorKind sums up a lookup error the way the SPF, DKIM and DMARC
// libraries read it.
func errorKind(err error) string {
	if err == nil {
		return "ok"
	}
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) {
		return "other: " + err.Error()
	}
	return fmt.Sprintf("notFound=%t temporary=%t timeout=%t", dnsErr.IsNotFound, dnsErr.Temporary(), dnsErr.IsTimeout)
}

// TestAnswersLikeNetResolver asks the same questions of net's resolver and
// of a Resolver, against one server: values and error kinds must agree.
func TestAnswersLikeNetResolver(t *testing.T) {
	srv := dnstest.Start(t, dnstest.Options{NegativeTTL: 60}, zone...)
	ours := newResolver(t, dnsresolve.Config{Servers: []string{srv.Addr}})
	theirs := srv.Resolver()
	ctx := context.Background()
	type resolver interface {
		LookupTXT(context.Context, string) ([]string, error)
		LookupMX(context.Context, string) ([]*net.MX, error)
		LookupIPAddr(context.Context, string) ([]net.IPAddr, error)
		LookupAddr(context.Context, string) ([]string, error)
	}
	questions := map[string]func(resolver) (string, error){}
	for _, name := range []string{"example.org", "EXAMPLE.org.", "_dmarc.example.org", "mx1.example.org", "missing.example.org", "bad name!"} {
		questions["TXT "+name] = func(r resolver) (string, error) {
			got, err := r.LookupTXT(ctx, name)
			return fmt.Sprintf("%q", got), err
		}
	}
	for _, name := range []string{"example.org", "mx1.example.org", "missing.example.org"} {
		questions["MX "+name] = func(r resolver) (string, error) {
			got, err := r.LookupMX(ctx, name)
			var out []string
			for _, mx := range got {
				out = append(out, fmt.Sprintf("%d %s", mx.Pref, mx.Host))
			}
			return strings.Join(out, ","), err
		}
	}
	for _, name := range []string{"mx1.example.org", "mx2.example.org", "v6only.example.org", "alias.example.org", "example.org", "missing.example.org", "192.0.2.1"} {
		questions["IP "+name] = func(r resolver) (string, error) {
			got, err := r.LookupIPAddr(ctx, name)
			var out []string
			for _, a := range got {
				out = append(out, a.IP.String())
			}
			slices.Sort(out)
			return strings.Join(out, ","), err
		}
	}
	for _, addr := range []string{"192.0.2.10", "192.0.2.99", "2001:db8::99"} {
		questions["PTR "+addr] = func(r resolver) (string, error) {
			got, err := r.LookupAddr(ctx, addr)
			return fmt.Sprintf("%q", got), err
		}
	}
	for name, ask := range questions {
		t.Run(name, func(t *testing.T) {
			want, wantErr := ask(theirs)
			got, gotErr := ask(ours)
			if got != want || errorKind(gotErr) != errorKind(wantErr) {
				t.Fatalf("got %s (%s), net's resolver %s (%s)", got, errorKind(gotErr), want, errorKind(wantErr))
			}
		})
	}
}

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestCacheHonoursTTLs: answers are kept for their TTL, capped by MaxTTL;
// negative answers for the SOA's TTL, or not at all without a SOA.
func TestCacheHonoursTTLs(t *testing.T) {
	ctx := context.Background()
	withSOA := dnstest.Start(t, dnstest.Options{NegativeTTL: 60}, zone...)
	withSOA.Set(t, `long.example.org. 86400 IN TXT "day"`)
	now := &clock{now: time.Unix(1e9, 0)}
	r := newResolver(t, dnsresolve.Config{Servers: []string{withSOA.Addr}, Now: now.Now})
	steps := []struct {
		name    string
		advance time.Duration
		queries int // queries the server has seen for name after the lookup
	}{
		{"example.org", 0, 1},
		{"example.org", 299 * time.Second, 1},
		{"example.org", 2 * time.Second, 2}, // the 300s TTL ran out
		{"long.example.org", 0, 1},
		{"long.example.org", 59 * time.Minute, 1},
		{"long.example.org", 2 * time.Minute, 2}, // capped at an hour
		{"missing.example.org", 0, 1},
		{"missing.example.org", 59 * time.Second, 1},
		{"missing.example.org", 2 * time.Second, 2}, // negative TTL 60s
	}
	for i, step := range steps {
		now.advance(step.advance)
		_, _ = r.LookupTXT(ctx, step.name)
		if got, _ := withSOA.Queries(step.name, dns.TypeTXT); got != step.queries {
			t.Fatalf("step %d (%s after %s): server asked %d times, want %d", i, step.name, step.advance, got, step.queries)
		}
	}

	noSOA := dnstest.Start(t, dnstest.Options{}, zone...)
	r = newResolver(t, dnsresolve.Config{Servers: []string{noSOA.Addr}})
	for range 2 {
		if _, err := r.LookupTXT(ctx, "missing.example.org"); errorKind(err) != "notFound=true temporary=false timeout=false" {
			t.Fatalf("missing name: %v", err)
		}
	}
	if got, _ := noSOA.Queries("missing.example.org", dns.TypeTXT); got != 2 {
		t.Fatalf("a negative answer without SOA was cached (%d queries, want 2)", got)
	}
	if s := r.Stats(); s.Hits != 0 || s.Misses != 2 {
		t.Fatalf("stats %+v, want 0 hits and 2 misses", s)
	}
}

// TestConcurrentLookupsShareOneQuery: lookups of one name while its query
// is in flight wait for that query instead of sending their own.
func TestConcurrentLookupsShareOneQuery(t *testing.T) {
	srv := dnstest.Start(t, dnstest.Options{Delay: 100 * time.Millisecond}, zone...)
	r := newResolver(t, dnsresolve.Config{Servers: []string{srv.Addr}})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if got, err := r.LookupTXT(context.Background(), "example.org"); err != nil || len(got) != 2 {
				t.Errorf("LookupTXT = %q, %v", got, err)
			}
		})
	}
	wg.Wait()
	if got, total := srv.Queries("example.org", dns.TypeTXT); got != 1 || total != 1 {
		t.Fatalf("the server got %d queries (%d in all), want 1", got, total)
	}
	if s := r.Stats(); s.Hits+s.Misses != 20 || s.Queries != 1 {
		t.Fatalf("stats %+v: want 20 lookups and 1 query", s)
	}
}

// TestDroppedQueriesAreRetransmitted: a server that loses the first copy
// of every query still answers within a short budget.
func TestDroppedQueriesAreRetransmitted(t *testing.T) {
	srv := dnstest.Start(t, dnstest.Options{Drop: func(_ dns.Question, n int) bool { return n == 1 }}, zone...)
	r := newResolver(t, dnsresolve.Config{Servers: []string{srv.Addr}, Retransmit: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if got, err := r.LookupIPAddr(ctx, "mx1.example.org"); err != nil || len(got) != 2 {
		t.Fatalf("LookupIPAddr = %v, %v", got, err)
	}
}

// TestSilentServerIsHeldDown: a server that never answers costs the first
// lookup its budget; the query runs on to the query timeout and is then
// remembered, so the next lookups fail at once without asking again. The
// silence is logged once, and so is the server's return.
func TestSilentServerIsHeldDown(t *testing.T) {
	var answering atomic.Bool
	srv := dnstest.Start(t, dnstest.Options{Drop: func(dns.Question, int) bool { return !answering.Load() }}, zone...)
	logs := &logRecords{}
	now := &clock{now: time.Unix(1e9, 0)}
	r := newResolver(t, dnsresolve.Config{
		Servers: []string{srv.Addr}, QueryTimeout: 300 * time.Millisecond, Retransmit: 50 * time.Millisecond,
		HoldDown: 20 * time.Millisecond, Now: now.Now, Logger: slog.New(logs),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err := r.LookupTXT(ctx, "example.org")
	cancel()
	if errorKind(err) != "notFound=false temporary=true timeout=true" {
		t.Fatalf("first lookup: %v (%s)", err, errorKind(err))
	}
	waitFor(t, func() bool { return r.Stats().Timeouts == 1 })
	_, before := srv.Queries("example.org", dns.TypeTXT)
	for range 3 {
		if _, err := r.LookupTXT(context.Background(), "example.org"); errorKind(err) != "notFound=false temporary=true timeout=true" {
			t.Fatalf("held-down lookup: %v", err)
		}
	}
	if _, after := srv.Queries("example.org", dns.TypeTXT); after != before {
		t.Fatalf("held-down lookups asked the server again (%d queries, then %d)", before, after)
	}
	if r.Probe(context.Background()) {
		t.Fatal("Probe reported a silent server as answering")
	}
	answering.Store(true)
	now.advance(time.Second) // past the cached failure's hold-down
	// The probe asks again every HoldDown; its answer ends the silence.
	waitFor(t, func() bool {
		got, err := r.LookupTXT(context.Background(), "example.org")
		return err == nil && len(got) == 2
	})
	if n := logs.count("do not answer"); n != 1 {
		t.Fatalf("the silence was logged %d times, want once: %q", n, logs.messages)
	}
	if n := logs.count("answer again"); n != 1 {
		t.Fatalf("the return was logged %d times, want once: %q", n, logs.messages)
	}
}

// TestDeadServerCostsNewNamesNothing: once a lookup has waited past its
// deadline with nothing answering, lookups of names never asked before
// fail at once as timeouts (held down), without asking the servers, for as
// long as they are silent; the error says why.
func TestDeadServerCostsNewNamesNothing(t *testing.T) {
	srv := dnstest.Start(t, dnstest.Options{Drop: func(dns.Question, int) bool { return true }}, zone...)
	// A query timeout of an hour: a lookup that waited for the servers
	// would hang this test.
	r := newResolver(t, dnsresolve.Config{Servers: []string{srv.Addr}, QueryTimeout: time.Hour, Retransmit: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err := r.LookupTXT(ctx, "first.example")
	cancel()
	if errorKind(err) != "notFound=false temporary=true timeout=true" {
		t.Fatalf("first lookup: %v", err)
	}
	for d := range 200 {
		name := fmt.Sprintf("d%d.example", d)
		_, err := r.LookupTXT(context.Background(), name)
		if errorKind(err) != "notFound=false temporary=true timeout=true" || !strings.Contains(err.Error(), "held down") {
			t.Fatalf("lookup of %s while the servers are silent: %v", name, err)
		}
		if _, err := r.LookupIPAddr(context.Background(), "mail."+name); err == nil {
			t.Fatalf("address lookup of mail.%s answered", name)
		}
		if asked, _ := srv.Queries(name, dns.TypeTXT); asked != 0 {
			t.Fatalf("a held-down lookup asked the servers for %s", name)
		}
	}
}

// TestSlowAnswerFillsTheCache: a lookup that gives up before a slow
// server answers leaves the query running, and its answer serves the next
// lookup.
func TestSlowAnswerFillsTheCache(t *testing.T) {
	srv := dnstest.Start(t, dnstest.Options{Delay: 150 * time.Millisecond}, zone...)
	r := newResolver(t, dnsresolve.Config{Servers: []string{srv.Addr}, Retransmit: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, err := r.LookupTXT(ctx, "example.org")
	cancel()
	if errorKind(err) != "notFound=false temporary=true timeout=true" {
		t.Fatalf("impatient lookup: %v", err)
	}
	waitFor(t, func() bool { return r.Stats().Cached == 1 })
	if got, err := r.LookupTXT(context.Background(), "example.org"); err != nil || len(got) != 2 {
		t.Fatalf("second lookup: %q, %v", got, err)
	}
	if s := r.Stats(); s.Late != 1 || s.Hits != 1 || s.Queries != 1 {
		t.Fatalf("stats %+v, want 1 late lookup, 1 hit and 1 query", s)
	}
}

// TestLargeAnswerComesOverTCP: an answer too big for UDP arrives
// truncated and is asked again over TCP.
func TestLargeAnswerComesOverTCP(t *testing.T) {
	chunk := strings.Repeat("k", 250)
	srv := dnstest.Start(t, dnstest.Options{}, fmt.Sprintf(`big.example.org. 300 IN TXT %s`, strings.Repeat(`"`+chunk+`" `, 12)))
	r := newResolver(t, dnsresolve.Config{Servers: []string{srv.Addr}})
	got, err := r.LookupTXT(context.Background(), "big.example.org")
	if err != nil || len(got) != 1 || got[0] != strings.Repeat(chunk, 12) {
		t.Fatalf("LookupTXT = %d records, %v", len(got), err)
	}
}

// TestGarbageAnswersGiveAResult: whatever a server sends back, a lookup
// ends with an error of the kind the checks expect (or an empty answer),
// soon, without a panic: an answer that is refused or cannot be used is a
// temporary failure (temperror), as RFC 7208 section 5 has it.
func TestGarbageAnswersGiveAResult(t *testing.T) {
	answerWith := func(edit func(m *dns.Msg)) func(*dns.Msg) []byte {
		return func(query *dns.Msg) []byte {
			m := new(dns.Msg)
			m.SetReply(query)
			edit(m)
			packed, err := m.Pack()
			if err != nil {
				panic(err)
			}
			return packed
		}
	}
	tests := map[string]struct {
		raw  func(*dns.Msg) []byte
		want string // errorKind
	}{
		"not DNS at all": {func(*dns.Msg) []byte { return []byte("HTTP/1.1 400 Bad Request\r\n\r\n") }, "notFound=false temporary=true timeout=false"},
		"cut short": {func(q *dns.Msg) []byte {
			m := new(dns.Msg)
			m.SetReply(q)
			m.Answer = []dns.RR{&dns.TXT{Hdr: dns.RR_Header{Name: q.Question[0].Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: []string{"v=spf1 -all"}}}
			packed, _ := m.Pack()
			return packed[:len(packed)-5]
		}, "notFound=false temporary=true timeout=false"},
		"another question": {answerWith(func(m *dns.Msg) { m.Question[0].Name = "other.example." }), "notFound=false temporary=true timeout=false"},
		"records of another type": {answerWith(func(m *dns.Msg) {
			m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: m.Question[0].Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.IPv4(192, 0, 2, 1)}}
		}), "notFound=true temporary=false timeout=false"},
		"refused":        {answerWith(func(m *dns.Msg) { m.Rcode = dns.RcodeRefused }), "notFound=false temporary=true timeout=false"},
		"server failure": {answerWith(func(m *dns.Msg) { m.Rcode = dns.RcodeServerFailure }), "notFound=false temporary=true timeout=false"},
		"truncated over TCP too": {func(q *dns.Msg) []byte {
			m := new(dns.Msg)
			m.SetReply(q)
			m.Truncated = true
			packed, _ := m.Pack()
			return packed
		}, "notFound=true temporary=false timeout=false"},
		"wrong ID": {answerWith(func(m *dns.Msg) { m.Id++ }), "notFound=false temporary=true timeout=true"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			srv := dnstest.Start(t, dnstest.Options{Raw: tt.raw}, zone...)
			r := newResolver(t, dnsresolve.Config{Servers: []string{srv.Addr}, QueryTimeout: 300 * time.Millisecond})
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			got, err := r.LookupTXT(ctx, "example.org")
			if errorKind(err) != tt.want || len(got) != 0 || ctx.Err() != nil {
				t.Fatalf("LookupTXT = %q, %v (%s); want %s within the second", got, err, errorKind(err), tt.want)
			}
		})
	}
}

// TestHostsFileAnswersFirst: names and addresses in the hosts file never
// reach DNS.
func TestHostsFileAnswersFirst(t *testing.T) {
	srv := dnstest.Start(t, dnstest.Options{}, zone...)
	r := newResolver(t, dnsresolve.Config{Servers: []string{srv.Addr}},
		"# comment", "127.0.0.1 localhost Local.Test # trailing", "::1 localhost ip6-localhost", "garbage", "999.1.1.1 bad")
	ctx := context.Background()
	if got, err := r.LookupAddr(ctx, "127.0.0.1"); err != nil || !slices.Equal(got, []string{"localhost.", "local.test."}) {
		t.Fatalf("LookupAddr = %q, %v", got, err)
	}
	got, err := r.LookupIPAddr(ctx, "localhost.")
	if err != nil || len(got) != 2 || !got[0].IP.Equal(net.IPv4(127, 0, 0, 1)) || !got[1].IP.Equal(net.IPv6loopback) {
		t.Fatalf("LookupIPAddr = %v, %v", got, err)
	}
	if _, total := srv.Queries("", 0); total != 0 {
		t.Fatalf("the hosts file's names reached DNS (%d queries)", total)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, bad := range [][]string{{"not a host:53"}, {"127.0.0.1:99999"}, {"127.0.0.1:port"}} {
		if _, err := dnsresolve.New(dnsresolve.Config{Servers: bad}); err == nil {
			t.Errorf("servers %q accepted", bad)
		}
	}
	conf := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(conf, []byte("search example.org\nnameserver 192.0.2.53\nnameserver 2001:db8::53\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := dnsresolve.New(dnsresolve.Config{ResolvConf: conf})
	if err != nil || !slices.Equal(r.Servers(), []string{"192.0.2.53:53", "[2001:db8::53]:53"}) {
		t.Fatalf("servers from resolv.conf: %q, %v", r.Servers(), err)
	}
	r, err = dnsresolve.New(dnsresolve.Config{Servers: []string{"192.0.2.1", "dns.example:5353"}})
	if err != nil || !slices.Equal(r.Servers(), []string{"192.0.2.1:53", "dns.example:5353"}) {
		t.Fatalf("servers given: %q, %v", r.Servers(), err)
	}
}

// waitFor polls cond until it holds, for at most 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// logRecords is a slog.Handler keeping the messages logged through it.
type logRecords struct {
	mu       sync.Mutex
	messages []string
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecords) WithGroup(string) slog.Handler            { return l }

func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.messages = append(l.messages, r.Message)
	return nil
}

// count is how many messages contained part.
func (l *logRecords) count(part string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.messages {
		if strings.Contains(m, part) {
			n++
		}
	}
	return n
}
