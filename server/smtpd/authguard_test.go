package smtpd_test

import (
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"golang.org/x/crypto/bcrypt"

	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/servertest"
)

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// authFile writes an auth file of users with the password "pw-USER",
// hashed at bcrypt's lowest cost.
func authFile(t testing.TB, users ...string) string {
	t.Helper()
	return authFileCost(t, bcrypt.MinCost, users...)
}

// authFileCost is authFile at a bcrypt cost.
func authFileCost(t testing.TB, cost int, users ...string) string {
	t.Helper()
	var b strings.Builder
	for _, u := range users {
		hash, err := bcrypt.GenerateFromPassword([]byte("pw-"+u), cost)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(u + ":" + string(hash) + "\n")
	}
	file := filepath.Join(t.TempDir(), "smtp-users")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// authFrom opens an SMTP connection from the loopback address local, says
// EHLO and logs in with PLAIN; it returns the AUTH reply's code (235 for
// success) and whether the server then closed the connection.
func authFrom(t testing.TB, addr, local, user, password string) (code int, closed bool) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 10 * time.Second}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c := smtp.NewClient(conn)
	defer c.Close()
	if err := c.Hello("client.example"); err != nil {
		t.Fatal(err)
	}
	err = c.Auth(sasl.NewPlainClient("", user, password))
	if err == nil {
		return 235, false
	}
	code = smtpsend.Code(err)
	if code == 0 {
		t.Fatalf("AUTH %s: %v", user, err)
	}
	return code, smtpsend.Code(c.Noop()) == 0
}

// TestSMTPAuthLockout: failed logins of one address with one user are
// refused with 421 (and the connection closed) past the limit, right
// password or not, while other users and addresses still log in; past the
// per-address limit every user of that address is refused; the lockout
// ends after its time.
func TestSMTPAuthLockout(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	srv := servertest.Start(t, func(cfg *server.Config) {
		cfg.Now = clock.Now
		cfg.SMTP.AuthFile = authFile(t, "alice", "bob", "carol")
		cfg.SMTP.AuthMaxFailures, cfg.SMTP.AuthMaxFailuresPerIP, cfg.SMTP.AuthLockout = 3, 5, time.Minute
	})
	addr := srv.SMTPAddr()
	for i := range 3 {
		if code, _ := authFrom(t, addr, "127.0.0.1", "alice", "guess"); code != 535 {
			t.Fatalf("failure %d: %d, want 535", i+1, code)
		}
	}
	if code, closed := authFrom(t, addr, "127.0.0.1", "alice", "pw-alice"); code != 421 || !closed {
		t.Fatalf("right password after 3 failures: %d (closed %v), want 421 and the connection closed", code, closed)
	}
	if code, _ := authFrom(t, addr, "127.0.0.2", "alice", "pw-alice"); code != 235 {
		t.Fatalf("alice from another address: %d, want 235", code)
	}
	if code, _ := authFrom(t, addr, "127.0.0.1", "bob", "pw-bob"); code != 235 {
		t.Fatalf("bob from the locked pair's address: %d, want 235", code)
	}
	for _, user := range []string{"bob", "nobody"} { // the address's 4th and 5th failure
		if code, _ := authFrom(t, addr, "127.0.0.1", user, "guess"); code != 535 {
			t.Fatalf("%s: %d, want 535", user, code)
		}
	}
	if code, _ := authFrom(t, addr, "127.0.0.1", "carol", "pw-carol"); code != 421 {
		t.Fatalf("carol after the address's 5 failures: %d, want 421", code)
	}
	clock.Advance(time.Minute)
	if code, _ := authFrom(t, addr, "127.0.0.1", "alice", "pw-alice"); code != 235 {
		t.Fatalf("alice after the lockout: %d, want 235", code)
	}
}

// TestSMTPAuthFailuresLogged: a client's failures make one log line at
// once, naming the client and the user, then one line summing up the rest
// of the period; never the password.
func TestSMTPAuthFailuresLogged(t *testing.T) {
	var log servertest.SyncBuffer
	srv := servertest.Start(t, func(cfg *server.Config) {
		cfg.SMTP.AuthFile = authFile(t, "alice")
		cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	})
	for range 3 {
		if code, _ := authFrom(t, srv.SMTPAddr(), "127.0.0.3", "alice", "hunter2-secret"); code != 535 {
			t.Fatalf("AUTH: %d, want 535", code)
		}
	}
	text := log.String()
	if n := strings.Count(text, "SMTP AUTH failed"); n != 1 || !strings.Contains(text, "client=127.0.0.3") || !strings.Contains(text, "user=alice") {
		t.Fatalf("%d lines for one client's failures:\n%s", n, text)
	}
	// The others are summed up in one line at the period's end, or when
	// the server stops.
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	summary := `msg="SMTP AUTH failures in the last 1m0s" component=smtp client=127.0.0.3 failures=2 users=[alice]`
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), summary); {
		if time.Now().After(deadline) {
			t.Fatalf("no summary line %s:\n%s", summary, log.String())
		}
		time.Sleep(10 * time.Millisecond) // polling the log for the line
	}
	if text := log.String(); strings.Count(text, "SMTP AUTH") != 2 || strings.Contains(text, "hunter2") {
		t.Fatalf("want two lines, no password:\n%s", text)
	}
}
