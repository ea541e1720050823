package server_test

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/textproto"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"sandview/server"
	"sandview/server/dnsresolve"
	"sandview/server/dnsresolve/dnstest"
	"sandview/server/servertest"
)

// benchMessage is a small multipart notification email (about 1.5 KB)
// from orders@example.org: text and HTML alternatives with a tracking link.
func benchMessage(to string, i int) []byte {
	return benchMessageFrom("orders@example.org", to, i)
}

// benchMessageFrom is benchMessage from another sender.
func benchMessageFrom(from, to string, i int) []byte {
	domain := from[strings.LastIndexByte(from, '@')+1:]
	return []byte(fmt.Sprintf("From: Shop <%s>\r\nTo: %s\r\nSubject: Your order #%d has shipped\r\n"+
		"Message-ID: <order-%d@%s>\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n"+
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\nTrack it at https://%s/track/%d\r\n"+
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>%s</p><p><a href=\"https://%s/track/%d\">Track it</a></p>\r\n"+
		"--b--\r\n",
		from, to, i, i, domain, strings.Repeat("Thank you for your order. ", 20), domain, i, strings.Repeat("Thank you for your order. ", 20), domain, i))
}

// pipeClient is a minimal SMTP client that uses PIPELINING (RFC 2920), as
// production mail servers do: MAIL, RCPT and DATA go out in one write, so a
// message costs two round trips.
type pipeClient struct {
	conn net.Conn
	text *textproto.Conn
}

func dialPipe(addr string) (*pipeClient, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &pipeClient{conn: conn, text: textproto.NewConn(conn)}
	if _, _, err := c.text.ReadResponse(220); err != nil {
		conn.Close()
		return nil, err
	}
	if err := c.text.PrintfLine("EHLO bench.example"); err != nil {
		conn.Close()
		return nil, err
	}
	if _, msg, err := c.text.ReadResponse(250); err != nil || !strings.Contains(msg, "PIPELINING") {
		conn.Close()
		return nil, fmt.Errorf("EHLO: %q %v", msg, err)
	}
	return c, nil
}

func (c *pipeClient) send(from, to string, msg []byte) error {
	_, err := c.sendTracked(from, to, msg)
	return err
}

func (c *pipeClient) Close() error { return c.conn.Close() }

// ingestCase is one SMTPIngest benchmark.
type ingestCase struct {
	encrypted bool
	// checksOff creates the inbox with emailAuth false.
	checksOff bool
	// senderDomains > 0 sends from that many domains in turn
	// (orders@dN.example), published with SPF and DMARC records by a
	// loopback DNS server answering after dnsDelay; 0 sends every mail from
	// example.org, whose checks an in-process resolver answers at once.
	senderDomains int
	// replicas > 0 runs that many servers on one PostgreSQL database, the
	// inbox made on the first and the connections spread over all.
	replicas int
	// deadDNS points the server's own resolver (--dns) at a DNS server that
	// never answers, instead of senderDNS.
	deadDNS bool
	// conns is the number of SMTP connections sending at once (0: 8).
	conns int
	opts  []func(*server.Config)
}

// dnsDelay is how long the benchmarks' DNS server takes to answer.
const dnsDelay = 30 * time.Millisecond

// benchIngest sends b.N messages over its SMTP connections and reports
// messages per second, the median SMTP time of a message (p50-ms) and the
// CPU time of the whole process (client included) per message. For
// an encrypted inbox it also reports signed-msg/s: messages per second
// until the last deferred signature is made, so that every payload is
// signed by the time a reader asks (the same as msg/s with
// Config.SignAtIngest), and how it compares with the signing floor
// measured in the same process (floorMetrics). With sender domains it
// reports the share of DNS lookups answered from the cache (dns-hit-%).
func benchIngest(b *testing.B, c ingestCase) {
	opts := append(c.opts, func(cfg *server.Config) { cfg.MaxEmailsPerInbox = 1 << 30 })
	var dns *dnsresolve.Resolver
	if c.deadDNS {
		dead := dnstest.Start(b, dnstest.Options{Drop: func(mdns.Question, int) bool { return true }})
		opts = append(opts, func(cfg *server.Config) { cfg.Resolver, cfg.DNSServers = nil, []string{dead.Addr} })
	} else if c.senderDomains > 0 {
		dns = senderDNS(b, c.senderDomains)
		opts = append(opts, func(cfg *server.Config) { cfg.Resolver = dns })
	}
	if c.replicas > 0 {
		opts = append(opts, onStore(pg.NewDatabase(b)))
	}
	srv, a := servertest.StartAPI(b, opts...)
	srvs := []*server.Server{srv}
	for range c.replicas - 1 {
		other, _ := servertest.StartAPI(b, opts...)
		srvs = append(srvs, other)
	}
	req := map[string]any{"emailAuth": !c.checksOff}
	var to string
	if c.encrypted {
		in := a.CreateEncrypted(req)
		if !in.Encrypted {
			b.Fatal("the inbox is not encrypted")
		}
		to = in.EmailAddress
	} else {
		to = a.CreatePlain(req).EmailAddress
	}
	sender := func(i int) string {
		if c.senderDomains == 0 {
			return "orders@example.org"
		}
		return fmt.Sprintf("orders@d%d.example", i%c.senderDomains)
	}
	conns := 8
	if c.conns > 0 {
		conns = c.conns
	}
	clients := make([]*pipeClient, conns)
	for i := range clients {
		c, err := dialPipe(srvs[i%len(srvs)].SMTPAddr())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		clients[i] = c
	}
	var next atomic.Int64
	var failed atomic.Int64
	times := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	var floorBefore float64
	if c.encrypted {
		floorBefore, _ = signingFloor(b)
	}
	b.ResetTimer()
	cpuStart := processCPU(b)
	start := time.Now()
	for n, c := range clients {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				from := sender(int(i))
				sent := time.Now()
				if err := c.send(from, to, benchMessageFrom(from, to, int(i))); err != nil {
					failed.Add(1)
				}
				times[n] = append(times[n], time.Since(sent))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, srv := range srvs {
		if err := srv.WaitForSignatures(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	signed := time.Since(start)
	cpu := processCPU(b) - cpuStart
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d sends failed", n)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msg/s")
	b.ReportMetric(quantileMS(slices.Concat(times...), 0.50), "p50-ms")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/msg")
	if c.encrypted {
		rate := float64(b.N) / signed.Seconds()
		b.ReportMetric(rate, "signed-msg/s")
		floorAfter, cpuPerSignature := signingFloor(b)
		floorMetrics(b, floorBefore, floorAfter, cpuPerSignature, cpu/time.Duration(b.N), rate)
	}
	if dns != nil {
		stats := dns.Stats()
		b.ReportMetric(100*float64(stats.Hits)/float64(stats.Hits+stats.Misses), "dns-hit-%")
	}
}

// processCPU is the CPU time the process has used (user and system): the
// cost of a message in it does not depend on what else the machine runs,
// as messages per second do.
func processCPU(b *testing.B) time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		b.Fatal(err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// senderDNS starts a DNS server answering after dnsDelay that publishes
// SPF (allowing 127.0.0.1) and DMARC for d0.example ... dN-1.example, and
// a caching resolver asking it.
func senderDNS(b *testing.B, domains int) *dnsresolve.Resolver {
	records := make([]string, 0, 2*domains)
	for d := range domains {
		records = append(records,
			fmt.Sprintf(`d%d.example. 300 IN TXT "v=spf1 ip4:127.0.0.1 -all"`, d),
			fmt.Sprintf(`_dmarc.d%d.example. 300 IN TXT "v=DMARC1; p=none"`, d))
	}
	dnsServer := dnstest.Start(b, dnstest.Options{Delay: dnsDelay, NegativeTTL: 300}, records...)
	r, err := dnsresolve.New(dnsresolve.Config{Servers: []string{dnsServer.Addr}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.Close)
	return r
}

func BenchmarkSMTPIngest(b *testing.B) {
	cases := map[string]ingestCase{
		"plain":                             {checksOff: true},
		"plain-checks-1-domain":             {senderDomains: 1},
		"plain-checks-500-domains":          {senderDomains: 500},
		"plain-checks-dead-dns-1-domain":    {senderDomains: 1, deadDNS: true},
		"plain-checks-dead-dns-500-domains": {senderDomains: 500, deadDNS: true},
		"encrypted":                         {encrypted: true},
		"encrypted-sign-at-ingest":          {encrypted: true, opts: []func(*server.Config){func(cfg *server.Config) { cfg.SignAtIngest = true }}},
		"plain-durable":                     {opts: []func(*server.Config){func(cfg *server.Config) { cfg.DataDir = b.TempDir() }}},
		"plain-durable-1-conn":              {conns: 1, opts: []func(*server.Config){func(cfg *server.Config) { cfg.DataDir = b.TempDir() }}},
		"encrypted-durable":                 {encrypted: true, opts: []func(*server.Config){func(cfg *server.Config) { cfg.DataDir = b.TempDir() }}},
		"plain-postgres-1-replica":          {checksOff: true, replicas: 1},
		"plain-postgres-2-replicas":         {checksOff: true, replicas: 2},
	}
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		b.Run(name, func(b *testing.B) { benchIngest(b, cases[name]) })
	}
}

// BenchmarkStreamLatency measures the time from the SMTP 250 reply to the
// event stream message, one message at a time: on one server, and from one
// replica to another on PostgreSQL (cross-replica).
func BenchmarkStreamLatency(b *testing.B) {
	b.Run("one-server", func(b *testing.B) {
		srv, _ := servertest.StartAPI(b, func(cfg *server.Config) { cfg.MaxEmailsPerInbox = 1 << 30 })
		benchStreamLatency(b, srv, srv)
	})
	b.Run("cross-replica", func(b *testing.B) {
		url := pg.NewDatabase(b)
		a, _ := servertest.StartAPI(b, onStore(url))
		other, _ := servertest.StartAPI(b, onStore(url))
		benchStreamLatency(b, a, other)
	})
}

// benchStreamLatency sends to an inbox on srv and reads its stream on
// reader.
func benchStreamLatency(b *testing.B, srv, reader *server.Server) {
	in := servertest.NewClient(b, srv).CreatePlain(nil)
	stream := servertest.OpenStream(b, reader, in.InboxHash)
	arrivals := make(chan time.Time, 16)
	go func() {
		for {
			ev, err := stream.Next()
			if err != nil {
				close(arrivals)
				return
			}
			if ev.IsNotification() {
				arrivals <- time.Now()
			}
		}
	}()
	measureLatency(b, srv, in.EmailAddress, "send-to-event-p50-ms", func() time.Time {
		arrived, ok := <-arrivals
		if !ok {
			b.Fatal("stream ended")
		}
		return arrived
	})
}

// measureLatency sends b.N mails to address over one SMTP connection, one
// at a time, and reports how long after the 250 (p50-ms, p99-ms) and after
// the start of the send (endToEndMetric, p50) each one arrived, as arrived
// says. An arrival before the client has read the 250 counts as 0.
func measureLatency(b *testing.B, srv *server.Server, address, endToEndMetric string, arrived func() time.Time) {
	c, err := dialPipe(srv.SMTPAddr())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	afterReply := make([]time.Duration, 0, b.N)
	endToEnd := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if err := c.send("orders@example.org", address, benchMessage(address, i)); err != nil {
			b.Fatal(err)
		}
		replied := time.Now()
		at := arrived()
		afterReply = append(afterReply, max(0, at.Sub(replied)))
		endToEnd = append(endToEnd, at.Sub(start))
	}
	b.StopTimer()
	b.ReportMetric(quantileMS(afterReply, 0.50), "p50-ms")
	b.ReportMetric(quantileMS(afterReply, 0.99), "p99-ms")
	b.ReportMetric(quantileMS(endToEnd, 0.50), endToEndMetric)
}

// quantileMS sorts d and returns its q-quantile in milliseconds.
func quantileMS(d []time.Duration, q float64) float64 {
	slices.Sort(d)
	return float64(d[int(q*float64(len(d)-1))]) / float64(time.Millisecond)
}

// fill sends total mails to an inbox over 8 SMTP connections.
func fill(b *testing.B, srv *server.Server, address string, total int) {
	const conns = 8
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conns {
		c, err := dialPipe(srv.SMTPAddr())
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() {
			defer c.Close()
			for i := next.Add(1); i <= int64(total); i = next.Add(1) {
				if err := c.send("orders@example.org", address, benchMessage(address, int(i))); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkListEmails lists an inbox of 10,000 plain emails (metadata only,
// as a TUI does on start).
func BenchmarkListEmails(b *testing.B) {
	srv, a := servertest.StartAPI(b)
	in := a.CreatePlain(nil)
	const total = 10000
	fill(b, srv, in.EmailAddress, total)
	path := "/api/inboxes/" + in.EmailAddress + "/emails"
	b.ResetTimer()
	for b.Loop() {
		status, body := a.Do("GET", path, nil)
		if status != 200 || len(body) < total*100 {
			b.Fatalf("list: status %d, %d bytes", status, len(body))
		}
	}
}
