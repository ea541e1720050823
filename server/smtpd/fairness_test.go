package smtpd_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"strings"
	"testing"
	"time"

	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/servertest"
)

// holdIdle opens n connections from each of the addresses, says EHLO and
// NOOP on each and leaves them open.
func holdIdle(t testing.TB, addr string, n int, from ...string) {
	t.Helper()
	for _, ip := range from {
		for range n {
			sc, code, text := dialSMTP(t, addr, ip)
			if code != 220 {
				t.Fatalf("idle connection from %s: %d %s", ip, code, text)
			}
			if code, _ := sc.cmd("EHLO idle.example"); code != 250 {
				t.Fatalf("EHLO: %d", code)
			}
			if code, _ := sc.cmd("NOOP"); code != 250 {
				t.Fatalf("NOOP: %d", code)
			}
		}
	}
}

// deliversWithin sends a mail to a new inbox, trying again while the server
// answers 421, and fails the test unless it is stored within d.
func deliversWithin(t *testing.T, srv *server.Server, a *servertest.Client, d time.Duration) {
	t.Helper()
	in := a.CreatePlain(nil)
	msg := servertest.SimpleMessage(in.EmailAddress, "through")
	start := time.Now()
	for {
		err := servertest.SendMail(srv.SMTPAddr(), "real@example.org", []string{in.EmailAddress}, msg)
		if err == nil {
			break
		}
		if smtpsend.Code(err) != 421 || time.Since(start) > d {
			t.Fatalf("the sender, after %s: %v", time.Since(start), err)
		}
	}
	if got := a.Emails(in.EmailAddress, false); len(got) != 1 {
		t.Fatalf("stored %d emails, want 1", len(got))
	}
}

// TestSMTPIdleConnectionsMakeRoom: 200 idle connections from 4 addresses
// hold every place (the default caps); a real sender from a fifth address
// still delivers within a second: the connection idle longest makes room.
func TestSMTPIdleConnectionsMakeRoom(t *testing.T) {
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.SMTP.NoProgressTimeout = 2 * time.Second })
	holdIdle(t, srv.SMTPAddr(), 50, "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")
	deliversWithin(t, srv, a, time.Second)
}

// TestSMTPIdleConnectionsOfOneAddress: a test suite that leaves 50
// connections open (the per-IP cap) can still send from the same address:
// its connection idle longest makes room.
func TestSMTPIdleConnectionsOfOneAddress(t *testing.T) {
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.SMTP.NoProgressTimeout = 2 * time.Second })
	holdIdle(t, srv.SMTPAddr(), 50, "127.0.0.1")
	deliversWithin(t, srv, a, time.Second)
}

// TestSMTPNoProgressTimeout: a connection that only NOOPs is closed with
// 421 after the no-progress timeout, although it is never idle.
func TestSMTPNoProgressTimeout(t *testing.T) {
	srv, _ := servertest.StartAPI(t, func(cfg *server.Config) { cfg.SMTP.NoProgressTimeout = 300 * time.Millisecond })
	sc, _, _ := dialSMTP(t, srv.SMTPAddr(), "127.0.0.1")
	for {
		if _, err := fmt.Fprintf(sc.c, "NOOP\r\n"); err != nil {
			break // closed: its last reply is still to be read
		}
		code, text, err := sc.r.ReadResponse(0)
		if code == 250 {
			continue
		}
		if code != 421 || !strings.Contains(text, "no mail delivered within 300ms") {
			t.Fatalf("NOOPing connection: %d %q %v, want 421", code, text, err)
		}
		return
	}
	if code, text := sc.reply(); code != 421 || !strings.Contains(text, "no mail delivered within 300ms") {
		t.Fatalf("NOOPing connection: %d %q, want 421", code, text)
	}
}

// BenchmarkSenderThroughIdle: the time a real sender takes to deliver a
// mail while 200 idle connections from 4 addresses hold every place (each
// mail's connection takes the place of one of them).
func BenchmarkSenderThroughIdle(b *testing.B) {
	const noProgress = 4 * time.Second
	srv, a := servertest.StartAPI(b, func(cfg *server.Config) { cfg.SMTP.NoProgressTimeout = noProgress })
	in := a.CreatePlain(nil)
	holdIdle(b, srv.SMTPAddr(), 50, "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")
	time.Sleep(noProgress / 4) // until they may make room
	msg := servertest.SimpleMessage(in.EmailAddress, "through")
	start := time.Now()
	for b.Loop() {
		if err := servertest.SendMail(srv.SMTPAddr(), "real@example.org", []string{in.EmailAddress}, msg); err != nil {
			b.Fatal(err)
		}
	}
	if time.Since(start) > noProgress*3/4 {
		b.Fatalf("the loop outlasted the idle connections (%s): ask for fewer iterations", time.Since(start))
	}
}

// TestSMTPProgressOverTLS: after STARTTLS (go-smtp makes a new session on
// the TLS connection) an accepted RCPT is still progress and receiving
// DATA still keeps the connection busy: a slow sender whose transaction
// outlasts the no-progress timeout several times over gets its 250.
// Before, the TLS session lost sight of its connection and every STARTTLS
// connection was closed at the timeout, in the middle of its DATA.
func TestSMTPProgressOverTLS(t *testing.T) {
	const noProgress = 300 * time.Millisecond
	var roots *x509.CertPool
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) {
		var pemCert []byte
		cfg.SMTP.TLSConfig, pemCert = servertest.SelfSignedTLS(t)
		cfg.SMTP.NoProgressTimeout = noProgress
		roots = x509.NewCertPool()
		roots.AppendCertsFromPEM(pemCert)
	})
	in := a.CreatePlain(nil)
	d := smtpsend.Dialer{StartTLS: &tls.Config{RootCAs: roots, ServerName: "localhost"}}
	c, err := d.Dial(context.Background(), srv.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Mail("slow@example.org", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt(in.EmailAddress, nil); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	msg := servertest.SimpleMessage(in.EmailAddress, "slow over TLS")
	pieces := 8
	for i := range pieces {
		part := msg[i*len(msg)/pieces : (i+1)*len(msg)/pieces]
		if _, err := w.Write(part); err != nil {
			t.Fatalf("DATA, piece %d of %d: %v", i+1, pieces, err)
		}
		// A slow sender: the transaction takes 3 timeouts.
		time.Sleep(3 * noProgress / time.Duration(pieces))
	}
	if err := w.Close(); err != nil {
		t.Fatalf("the end of DATA over TLS: %v, want 250", err)
	}
	if _, ok := c.TLSConnectionState(); !ok {
		t.Fatal("the mail did not travel over TLS")
	}
	if got := a.Emails(in.EmailAddress, false); len(got) != 1 {
		t.Fatalf("stored %d emails, want 1", len(got))
	}
}
