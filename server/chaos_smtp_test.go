package server_test

import (
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/core"
	"sandview/server/servertest"
)

// smtplibScript sends n messages, each on a connection of its own, and
// prints one line per attempt: "OK <ms>", "ERR <code> <text>", "RESET"
// (the server reset the connection) or "CLOSED" (it closed it).
const smtplibScript = `
import smtplib, sys, time
host, port, sender, rcpt, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
msg = "From: app@example.org\r\nTo: %s\r\nSubject: chaos\r\n\r\nhello\r\n" % rcpt
for i in range(n):
    s = smtplib.SMTP(host, port, timeout=60)
    try:
        s.ehlo()
        s.mail(sender)
        s.rcpt(rcpt)
        t0 = time.monotonic()
        code, text = s.data(msg)
        ms = int((time.monotonic() - t0) * 1000)
        print("OK %d" % ms if code == 250 else "ERR %d %s" % (code, text.decode()))
    except smtplib.SMTPDataError as e:
        print("ERR %d %s" % (e.smtp_code, e.smtp_error.decode()))
    except ConnectionResetError:
        print("RESET")
    except smtplib.SMTPServerDisconnected as e:
        # smtplib wraps a reset in its disconnection error
        print("RESET" if "reset by peer" in str(e) else "CLOSED")
    finally:
        try:
            s.close()
        except Exception:
            pass
    sys.stdout.flush()
`

// smtplib sends n messages from sender to rcpt with Python's smtplib and
// returns its lines (see smtplibScript).
func smtplib(t *testing.T, srv *server.Server, sender, rcpt string, n int) []string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed for this test (apt-get install python3)")
	}
	host, port, _ := strings.Cut(srv.SMTPAddr(), ":")
	out, err := exec.Command(python, "-c", smtplibScript, host, port, sender, rcpt, strconv.Itoa(n)).CombinedOutput()
	if err != nil {
		t.Fatalf("smtplib: %v\n%s", err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// setChaos sets an inbox's chaos config.
func setChaos(t *testing.T, c *servertest.Client, addr string, cfg map[string]any) {
	t.Helper()
	c.Expect(http.StatusOK, "POST", chaosPath(addr), cfg, nil)
}

// on is a sub-object enabled with fields.
func on(fields ...any) map[string]any {
	m := map[string]any{"enabled": true}
	for i := 0; i+1 < len(fields); i += 2 {
		m[fields[i].(string)] = fields[i+1]
	}
	return m
}

// TestChaosSMTPKinds: each kind seen by Python's smtplib with its reply,
// the mail stored or not as chaos.md says.
func TestChaosSMTPKinds(t *testing.T) {
	srv, c := servertest.StartAPI(t, withChaos)
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	for _, tc := range []struct {
		name   string
		cfg    map[string]any
		want   func(line string) bool
		stored int
	}{
		{"permanent error", map[string]any{"enabled": true, "randomError": on("errorRate", 1, "errorTypes", []string{"permanent"})}, prefixed("ERR 55"), 0},
		{"temporary error", map[string]any{"enabled": true, "randomError": on("errorRate", 1, "errorTypes", []string{"temporary"})}, oneOf("ERR 421 4.7.0 ", "ERR 450 4.2.1 ", "ERR 451 4.3.0 ", "ERR 452 4.3.1 "), 0},
		{"no error types", map[string]any{"enabled": true, "randomError": on("errorRate", 1, "errorTypes", []string{})}, prefixed("ERR 421 4.7.0 Service temporarily unavailable"), 0},
		{"blackhole", map[string]any{"enabled": true, "blackhole": on(), "latency": on("minDelayMs", 5000, "maxDelayMs", 5000)}, prefixed("OK "), 0},
		{"graceful drop", map[string]any{"enabled": true, "connectionDrop": on("graceful", true)}, prefixed("CLOSED"), 0},
		{"abortive drop", map[string]any{"enabled": true, "connectionDrop": on("graceful", false)}, prefixed("RESET"), 0},
		{"drop beats blackhole", map[string]any{"enabled": true, "connectionDrop": on(), "blackhole": on()}, prefixed("CLOSED"), 0},
		{"probability 0", map[string]any{"enabled": true, "connectionDrop": on("probability", 0), "randomError": on("errorRate", 0)}, prefixed("OK "), 1},
		{"master off", map[string]any{"enabled": false, "blackhole": on()}, prefixed("OK "), 1},
		{"kind off", map[string]any{"enabled": true, "blackhole": map[string]any{"enabled": false}}, prefixed("OK "), 1},
		{"expired", map[string]any{"enabled": true, "expiresAt": past, "blackhole": on()}, prefixed("OK "), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := c.CreatePlain(nil).EmailAddress
			setChaos(t, c, addr, tc.cfg)
			lines := smtplib(t, srv, "app@example.org", addr, 1)
			if len(lines) != 1 || !tc.want(lines[0]) {
				t.Fatalf("smtplib saw %q", lines)
			}
			if tc.stored > 0 {
				c.WaitForCount(addr, tc.stored)
			}
			if got := len(c.Emails(addr, false)); got != tc.stored {
				t.Fatalf("%d emails stored, want %d", got, tc.stored)
			}
		})
	}
	var metrics struct{ Chaos core.ChaosMetrics }
	c.Expect(http.StatusOK, "GET", "/api/metrics", nil, &metrics)
	if m := metrics.Chaos; m.EventsTotal != 7 || m.ErrorsReturnedTotal != 3 || m.ConnectionsDroppedTotal != 3 || m.BlackholeTotal != 1 || m.GreylistRejectionsTotal != 0 || m.LatencyInjectedMs != 0 {
		t.Fatalf("metrics %+v", m)
	}
}

func prefixed(p string) func(string) bool {
	return func(s string) bool { return strings.HasPrefix(s, p) }
}

func oneOf(ps ...string) func(string) bool {
	return func(s string) bool {
		for _, p := range ps {
			if strings.HasPrefix(s, p) {
				return true
			}
		}
		return false
	}
}

// TestChaosGreylistRetries: a client that retries gets through after
// maxAttempts-1 refusals, is refused again after its success, a null
// sender is never greylisted, and each trackBy keys its own entries.
func TestChaosGreylistRetries(t *testing.T) {
	srv, c := servertest.StartAPI(t, withChaos)
	addr := c.CreatePlain(nil).EmailAddress
	setChaos(t, c, addr, map[string]any{"enabled": true, "greylist": on("maxAttempts", 3)})
	lines := smtplib(t, srv, "app@example.org", addr, 4)
	want := []string{"ERR 451 4.7.1 Greylisting in operation, try again later", "ERR 451 4.7.1 Greylisting in operation, try again later", "OK", "ERR 451 4.7.1 Greylisting in operation, try again later"}
	for i := range want {
		if i >= len(lines) || !strings.HasPrefix(lines[i], want[i]) {
			t.Fatalf("attempts %q, want %q", lines, want)
		}
	}
	// Under ip_sender another sender is refused on its own; the null
	// sender passes.
	if lines := smtplib(t, srv, "other@example.org", addr, 1); !strings.HasPrefix(lines[0], "ERR 451 4.7.1") {
		t.Fatalf("another sender: %q", lines)
	}
	if lines := smtplib(t, srv, "", addr, 1); !strings.HasPrefix(lines[0], "OK") {
		t.Fatalf("null sender: %q", lines)
	}
	c.WaitForCount(addr, 2)
	for _, trackBy := range []string{"ip", "sender", "ip_sender"} {
		in := c.CreatePlain(nil).EmailAddress
		setChaos(t, c, in, map[string]any{"enabled": true, "greylist": on("trackBy", trackBy)})
		if lines := smtplib(t, srv, "app@example.org", in, 2); len(lines) != 2 || !strings.HasPrefix(lines[0], "ERR 451") || !strings.HasPrefix(lines[1], "OK") {
			t.Fatalf("trackBy %s: %q", trackBy, lines)
		}
	}
}

// TestChaosLatency: the reply waits at least minDelayMs, the mail is
// stored (before the reply), and the delay is counted.
func TestChaosLatency(t *testing.T) {
	srv, c := servertest.StartAPI(t, withChaos)
	addr := c.CreatePlain(nil).EmailAddress
	setChaos(t, c, addr, map[string]any{"enabled": true, "latency": on("minDelayMs", 1000, "maxDelayMs", 2000)})
	lines := smtplib(t, srv, "app@example.org", addr, 1)
	ms, err := strconv.Atoi(strings.TrimPrefix(lines[0], "OK "))
	if err != nil || ms < 1000 {
		t.Fatalf("smtplib: %q, want OK after 1000 ms or more", lines)
	}
	if got := len(c.Emails(addr, false)); got != 1 {
		t.Fatalf("%d emails stored once answered, want 1", got)
	}
	var metrics struct{ Chaos core.ChaosMetrics }
	c.Expect(http.StatusOK, "GET", "/api/metrics", nil, &metrics)
	if m := metrics.Chaos; m.EventsTotal != 1 || m.LatencyInjectedMs < 1000 || m.LatencyInjectedMs >= 2000 {
		t.Fatalf("metrics %+v", m)
	}
}

// TestChaosOffSMTP: with the switch off a config set at creation is
// dropped and SMTP delivers.
func TestChaosOffSMTP(t *testing.T) {
	srv, c := servertest.StartAPI(t)
	var in struct{ EmailAddress string }
	c.Expect(http.StatusCreated, "POST", "/api/inboxes", map[string]any{"encryption": "plain", "chaos": map[string]any{"enabled": true, "blackhole": on()}}, &in)
	if lines := smtplib(t, srv, "app@example.org", in.EmailAddress, 1); !strings.HasPrefix(lines[0], "OK") {
		t.Fatalf("smtplib: %q", lines)
	}
	c.WaitForCount(in.EmailAddress, 1)
}
