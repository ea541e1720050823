package server_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/servertest"
)

// dialog is a raw SMTP conversation: send writes a line, reply reads one
// whole reply and returns its last line.
type dialog struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dial(t *testing.T, srv *server.Server) *dialog {
	t.Helper()
	conn, err := net.Dial("tcp", srv.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	d := &dialog{t: t, conn: conn, r: bufio.NewReader(conn)}
	d.reply()
	return d
}

func (d *dialog) send(line string) {
	d.t.Helper()
	if _, err := fmt.Fprintf(d.conn, "%s\r\n", line); err != nil {
		d.t.Fatal(err)
	}
}

func (d *dialog) reply() string {
	d.t.Helper()
	for {
		line, err := d.r.ReadString('\n')
		if err != nil {
			d.t.Fatalf("reading a reply: %v", err)
		}
		if len(line) < 4 || line[3] != '-' {
			return strings.TrimRight(line, "\r\n")
		}
	}
}

// transaction sends one message and returns the reply to its end.
func (d *dialog) transaction(to string) string {
	d.t.Helper()
	for _, line := range []string{"MAIL FROM:<app@example.org>", "RCPT TO:<" + to + ">", "DATA"} {
		d.send(line)
		d.reply()
	}
	d.send("Subject: chaos\r\n\r\nhello\r\n.")
	return d.reply()
}

// TestChaosRepliesOnTheWire: with the random number fixed, a temporary
// error is 450 4.2.1 and the session goes on; an empty errorTypes is 421
// 4.7.0 and the server closes the connection after it; each message of
// a session is evaluated on its own; each action is logged.
func TestChaosRepliesOnTheWire(t *testing.T) {
	logs := &servertest.SyncBuffer{}
	srv, c := servertest.StartAPI(t, withChaos, auditLog(logs), func(cfg *server.Config) { cfg.Rand = func() float64 { return 0.3 } })
	addr := c.CreatePlain(nil).EmailAddress
	setChaos(t, c, addr, map[string]any{"enabled": true, "randomError": on("errorRate", 1, "errorTypes", []string{"temporary"})})
	d := dial(t, srv)
	d.send("EHLO client.test")
	d.reply()
	if got := d.transaction(addr); got != "450 4.2.1 Mailbox busy, try again later" {
		t.Fatalf("first message: %q", got)
	}
	setChaos(t, c, addr, map[string]any{"enabled": true, "randomError": on("errorRate", 0.2)})
	if got := d.transaction(addr); !strings.HasPrefix(got, "250 ") {
		t.Fatalf("second message, rate 0.2 under a draw of 0.3: %q", got)
	}
	setChaos(t, c, addr, map[string]any{"enabled": true, "randomError": on("errorRate", 1, "errorTypes", []string{})})
	if got := d.transaction(addr); got != "421 4.7.0 Service temporarily unavailable" {
		t.Fatalf("third message: %q", got)
	}
	if _, err := d.r.ReadByte(); err == nil {
		t.Fatal("the connection is still open after 421")
	}
	c.WaitForCount(addr, 1)
	// One log line per applied action.
	if got := strings.Count(logs.String(), `msg="chaos applied" inbox=`+addr+" type=random_error"); got != 2 {
		t.Fatalf("%d log lines of applied chaos, want 2:\n%s", got, logs.String())
	}
}

// TestChaosAtCreationReference: the reference profile echoes the chaos
// of a new inbox next to persistent, and a disabled one reads disabled.
func TestChaosAtCreationReference(t *testing.T) {
	_, c := servertest.StartAPI(t, withChaos, func(cfg *server.Config) { cfg.Compat = server.CompatReference })
	status, data := c.Do("POST", "/api/inboxes", map[string]any{"encryption": "plain", "chaos": map[string]any{"enabled": true, "latency": on(), "randomError": on()}})
	if status != http.StatusCreated || !strings.Contains(string(data), `"chaos":{"enabled":true,"latency":{"enabled":true,"minDelayMs":500,"maxDelayMs":10000,"jitter":true,"probability":1},"randomError":{"enabled":true,"errorRate":0.1,"errorTypes":["temporary"]}}`) || !strings.Contains(string(data), `"persistent":false`) {
		t.Fatalf("created: %d %s", status, data)
	}
	var in struct{ EmailAddress string }
	c.Expect(http.StatusCreated, "POST", "/api/inboxes", map[string]any{"encryption": "plain", "chaos": map[string]any{"enabled": false}}, &in)
	if got := chaosOf(t, c, in.EmailAddress); got.Enabled {
		t.Fatalf("created with chaos disabled: %+v", got)
	}
}
