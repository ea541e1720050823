package smtpd_test

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/servertest"
)

// smtpConn is a raw SMTP connection from a chosen loopback address.
type smtpConn struct {
	t testing.TB
	c net.Conn
	r *textproto.Reader
}

// dialSMTP connects from the loopback address from (Linux routes all of
// 127/8 to the loopback interface) and reads the greeting's code.
func dialSMTP(t testing.TB, addr, from string) (*smtpConn, int, string) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", from, err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	sc := &smtpConn{t: t, c: c, r: textproto.NewReader(bufio.NewReader(c))}
	code, text := sc.reply()
	return sc, code, text
}

// reply reads one (possibly multi-line) reply.
func (sc *smtpConn) reply() (int, string) {
	sc.t.Helper()
	code, text, err := sc.r.ReadResponse(0)
	if err != nil && code == 0 {
		sc.t.Fatalf("read reply: %v", err)
	}
	return code, text
}

// cmd sends a command line and reads its reply.
func (sc *smtpConn) cmd(line string) (int, string) {
	sc.t.Helper()
	if _, err := fmt.Fprintf(sc.c, "%s\r\n", line); err != nil {
		sc.t.Fatalf("send %q: %v", line, err)
	}
	return sc.reply()
}

// TestSMTPConnectionCaps: connections beyond the per-IP and total caps
// get 421 and are closed, a closed connection frees its place, each
// refusal is in the refusal log, and the log sums them up instead of a
// line each.
func TestSMTPConnectionCaps(t *testing.T) {
	var logs servertest.SyncBuffer
	srv, _ := servertest.StartAPI(t, func(cfg *server.Config) {
		cfg.SMTP.MaxConns, cfg.SMTP.MaxConnsPerIP = 4, 2
		cfg.SMTP.NoProgressTimeout = time.Hour // no idle connection makes room here
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	addr := srv.SMTPAddr()
	first, code, _ := dialSMTP(t, addr, "127.0.0.1")
	if code != 220 {
		t.Fatalf("first connection: %d", code)
	}
	if _, code, _ := dialSMTP(t, addr, "127.0.0.1"); code != 220 {
		t.Fatalf("second connection: %d", code)
	}
	if _, code, text := dialSMTP(t, addr, "127.0.0.1"); code != 421 || !strings.Contains(text, "too many connections from 127.0.0.1") {
		t.Fatalf("third connection from one IP: %d %q, want 421", code, text)
	}
	for range 2 {
		if _, code, _ := dialSMTP(t, addr, "127.0.0.2"); code != 220 {
			t.Fatalf("connection from another IP: %d", code)
		}
	}
	if _, code, text := dialSMTP(t, addr, "127.0.0.3"); code != 421 || !strings.Contains(text, "too many connections (4)") {
		t.Fatalf("fifth connection: %d %q, want 421 (total cap)", code, text)
	}
	for range 30 {
		if _, code, _ := dialSMTP(t, addr, "127.0.0.4"); code != 421 {
			t.Fatalf("connection over the cap: %d", code)
		}
	}
	if code, _ := first.cmd("QUIT"); code != 221 {
		t.Fatalf("QUIT: %d", code)
	}
	// The server uncounts the connection once it has closed it: wait for
	// the place to be free.
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, code, _ := dialSMTP(t, addr, "127.0.0.1")
		if code == 220 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed connection never freed its place")
		}
	}

	var refused int
	for _, r := range srv.Refusals() {
		if r.Code == 421 && strings.HasPrefix(r.ClientIP, "127.0.0.") {
			refused++
		}
	}
	if refused < 32 {
		t.Fatalf("refusal log holds %d refused connections, want at least 32: %v", refused, srv.Refusals())
	}
	// One line at the first refusal, then one summary per 10 s: a slow
	// machine may see a few, never one per connection.
	if n := strings.Count(logs.String(), "refused an SMTP connection"); n < 1 || n > 4 {
		t.Fatalf("%d log lines for single refused connections, want 1 (the rest summed up):\n%s", n, logs.String())
	}
}

// TestSMTPSizeRefusals: a declared SIZE over the limit is refused at MAIL
// (552), a DATA over it after the data (552) on a session that goes on;
// both are recorded with the envelope and reach a watcher.
func TestSMTPSizeRefusals(t *testing.T) {
	const limit = 64 << 10
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.SMTP.MaxMessageBytes = limit })
	in := a.CreatePlain(nil)
	seen := make(chan server.Refusal, 10)
	stop := srv.WatchRefusals(func(r server.Refusal) { seen <- r })
	defer stop()

	sc, _, _ := dialSMTP(t, srv.SMTPAddr(), "127.0.0.1")
	if code, text := sc.cmd("EHLO client.example"); code != 250 || !strings.Contains(text, fmt.Sprintf("SIZE %d", limit)) {
		t.Fatalf("EHLO: %d %q, want the size limit in SIZE", code, text)
	}
	if code, text := sc.cmd(fmt.Sprintf("MAIL FROM:<big@example.org> SIZE=%d", limit+1)); code != 552 {
		t.Fatalf("MAIL with SIZE over the limit: %d %q, want 552", code, text)
	}
	if r := <-seen; r.Code != 552 || r.MailFrom != "big@example.org" || !strings.Contains(r.Reason, "declared size") {
		t.Fatalf("refusal %+v", r)
	}
	if code, _ := sc.cmd("MAIL FROM:<big@example.org>"); code != 250 {
		t.Fatalf("MAIL: %d", code)
	}
	if code, _ := sc.cmd("RCPT TO:<" + in.EmailAddress + ">"); code != 250 {
		t.Fatalf("RCPT: %d", code)
	}
	if code, _ := sc.cmd("DATA"); code != 354 {
		t.Fatalf("DATA: %d", code)
	}
	body := append(servertest.SimpleMessage(in.EmailAddress, "too big"), bytes.Repeat([]byte("0123456789abcdef0123456789abcdef\r\n"), 4*limit/34)...)
	if _, err := sc.c.Write(append(body, ".\r\n"...)); err != nil {
		t.Fatal(err)
	}
	if code, text := sc.reply(); code != 552 {
		t.Fatalf("oversized DATA: %d %q, want 552", code, text)
	}
	if r := <-seen; r.Code != 552 || r.MailFrom != "big@example.org" || len(r.Rcpt) != 1 || r.Rcpt[0] != in.EmailAddress || r.ClientIP != "127.0.0.1" {
		t.Fatalf("refusal %+v", r)
	}
	// The session goes on: a mail within the limit is stored.
	if code, _ := sc.cmd("MAIL FROM:<small@example.org>"); code != 250 {
		t.Fatalf("MAIL after 552: %d", code)
	}
	if code, _ := sc.cmd("RCPT TO:<" + in.EmailAddress + ">"); code != 250 {
		t.Fatalf("RCPT: %d", code)
	}
	if code, _ := sc.cmd("DATA"); code != 354 {
		t.Fatalf("DATA: %d", code)
	}
	if _, err := sc.c.Write(append(servertest.SimpleMessage(in.EmailAddress, "fits"), ".\r\n"...)); err != nil {
		t.Fatal(err)
	}
	if code, text := sc.reply(); code != 250 {
		t.Fatalf("mail within the limit: %d %q", code, text)
	}
	if n := len(a.Emails(in.EmailAddress, false)); n != 1 {
		t.Fatalf("inbox holds %d emails, want 1", n)
	}
	sc.cmd("MAIL FROM:<x@example.org>")
	if code, _ := sc.cmd("RCPT TO:<nobody@sandbox.test>"); code != 550 {
		t.Fatalf("RCPT to an unknown inbox: %d, want 550", code)
	}
	if r := <-seen; r.Code != 550 || r.Rcpt[0] != "nobody@sandbox.test" || r.MailFrom != "x@example.org" {
		t.Fatalf("refusal %+v", r)
	}
	if got := srv.Refusals(); len(got) < 3 || !strings.Contains(got[len(got)-1].String(), "SMTP 550 refused mail from x@example.org to nobody@sandbox.test (client 127.0.0.1): no inbox") {
		t.Fatalf("refusal log %v", got)
	}
}

// TestSMTPIdleTimeout: a connection that sends nothing is closed after
// the idle timeout with 421.
func TestSMTPIdleTimeout(t *testing.T) {
	srv, _ := servertest.StartAPI(t, func(cfg *server.Config) { cfg.SMTP.IdleTimeout = 300 * time.Millisecond })
	sc, _, _ := dialSMTP(t, srv.SMTPAddr(), "127.0.0.1")
	if code, text := sc.reply(); code != 421 || !strings.Contains(text, "Idle timeout") {
		t.Fatalf("idle connection: %d %q, want 421", code, text)
	}
}

// TestSMTPBDATOverTheLimit: CHUNKING is offered; chunks past the size
// limit end in 552 and the session goes on.
func TestSMTPBDATOverTheLimit(t *testing.T) {
	const limit = 64 << 10
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.SMTP.MaxMessageBytes = limit })
	in := a.CreatePlain(nil)
	sc, _, _ := dialSMTP(t, srv.SMTPAddr(), "127.0.0.1")
	sc.cmd("EHLO client.example")
	sc.cmd("MAIL FROM:<chunks@example.org>")
	sc.cmd("RCPT TO:<" + in.EmailAddress + ">")
	chunk := bytes.Repeat([]byte(strings.Repeat("y", 98)+"\r\n"), 400) // 40,000 bytes
	var last int
	for i := range 4 {
		cmd := fmt.Sprintf("BDAT %d", len(chunk))
		if i == 3 {
			cmd += " LAST"
		}
		if _, err := fmt.Fprintf(sc.c, "%s\r\n%s", cmd, chunk); err != nil {
			t.Fatal(err)
		}
		var text string
		last, text = sc.reply()
		t.Logf("chunk %d: %d %s", i, last, text)
		if last != 250 {
			break
		}
	}
	if last != 552 {
		t.Fatalf("BDAT past the limit: %d, want 552", last)
	}
	if code, _ := sc.cmd("NOOP"); code != 250 {
		t.Fatalf("NOOP after 552: %d", code)
	}
}
