package server_test

import (
	"context"
	"fmt"
	"net"
	"net/textproto"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandview/server"
)

// benchMessage is a small multipart notification email (about 1.5 KB):
// text and HTML alternatives with a tracking link.
func benchMessage(to string, i int) []byte {
	return []byte(fmt.Sprintf("From: Shop <orders@example.org>\r\nTo: %s\r\nSubject: Your order #%d has shipped\r\n"+
		"Message-ID: <order-%d@example.org>\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n"+
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\nTrack it at https://example.org/track/%d\r\n"+
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>%s</p><p><a href=\"https://example.org/track/%d\">Track it</a></p>\r\n"+
		"--b--\r\n",
		to, i, i, strings.Repeat("Thank you for your order. ", 20), i, strings.Repeat("Thank you for your order. ", 20), i))
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
	w := c.text.W
	fmt.Fprintf(w, "MAIL FROM:<%s>\r\nRCPT TO:<%s>\r\nDATA\r\n", from, to)
	if err := w.Flush(); err != nil {
		return err
	}
	for _, code := range []int{250, 250, 354} {
		if _, _, err := c.text.ReadResponse(code); err != nil {
			return err
		}
	}
	dw := c.text.DotWriter()
	if _, err := dw.Write(msg); err != nil {
		return err
	}
	if err := dw.Close(); err != nil {
		return err
	}
	_, _, err := c.text.ReadResponse(250)
	return err
}

func (c *pipeClient) Close() error { return c.conn.Close() }

// benchIngest sends b.N messages over `conns` SMTP connections and reports
// messages per second. For an encrypted inbox it also reports
// signed-msg/s: messages per second until the last deferred signature is
// made (the same as msg/s with Config.SignAtIngest).
func benchIngest(b *testing.B, encrypted bool, opts ...func(*server.Config)) {
	opts = append(opts, func(cfg *server.Config) { cfg.MaxEmailsPerInbox = 1 << 30 })
	srv, a := startServer(b, opts...)
	to := a.createPlain(nil).EmailAddress
	if encrypted {
		to = a.createEncrypted(nil).EmailAddress
	}
	const conns = 8
	clients := make([]*pipeClient, conns)
	for i := range clients {
		c, err := dialPipe(srv.SMTPAddr())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		clients[i] = c
	}
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				if err := c.send("orders@example.org", to, benchMessage(to, int(i))); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := srv.WaitForSignatures(context.Background()); err != nil {
		b.Fatal(err)
	}
	signed := time.Since(start)
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d sends failed", n)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msg/s")
	if encrypted {
		b.ReportMetric(float64(b.N)/signed.Seconds(), "signed-msg/s")
	}
}

func BenchmarkSMTPIngest(b *testing.B) {
	b.Run("plain", func(b *testing.B) { benchIngest(b, false) })
	b.Run("encrypted", func(b *testing.B) { benchIngest(b, true) })
	b.Run("encrypted-sign-at-ingest", func(b *testing.B) {
		benchIngest(b, true, func(cfg *server.Config) { cfg.SignAtIngest = true })
	})
	b.Run("plain-durable", func(b *testing.B) {
		dir := b.TempDir()
		benchIngest(b, false, func(cfg *server.Config) { cfg.DataDir = dir })
	})
	b.Run("encrypted-durable", func(b *testing.B) {
		dir := b.TempDir()
		benchIngest(b, true, func(cfg *server.Config) { cfg.DataDir = dir })
	})
}

// BenchmarkStreamLatency measures the time from the SMTP 250 reply to the
// event stream message, one message at a time.
func BenchmarkStreamLatency(b *testing.B) {
	srv, a := startServer(b, func(cfg *server.Config) { cfg.MaxEmailsPerInbox = 1 << 30 })
	in := a.createPlain(nil)
	stream := openStream(b, srv, in.InboxHash)
	arrivals := make(chan time.Time, 16)
	go func() {
		for {
			ev, err := stream.next()
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

// BenchmarkListEmails lists an inbox of 10,000 plain emails (metadata only,
// as a TUI does on start).
func BenchmarkListEmails(b *testing.B) {
	srv, a := startServer(b)
	in := a.createPlain(nil)
	const total, conns = 10000, 8
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conns {
		c, err := dialPipe(srv.SMTPAddr())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= total; i = next.Add(1) {
				if err := c.send("orders@example.org", in.EmailAddress, benchMessage(in.EmailAddress, int(i))); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	path := "/api/inboxes/" + in.EmailAddress + "/emails"
	b.ResetTimer()
	for b.Loop() {
		status, body := a.do("GET", path, nil)
		if status != 200 || len(body) < total*100 {
			b.Fatalf("list: status %d, %d bytes", status, len(body))
		}
	}
}
