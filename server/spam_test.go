package server_test

import (
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
	"sandview/server/spamd/spamdtest"
)

// hangingSpamd is a TCP listener that accepts and never answers.
func hangingSpamd(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	return l.Addr().String()
}

// spamOf sends a mail to a new plain inbox and returns its spam analysis.
func spamOf(t *testing.T, srv *server.Server, a *servertest.Client, subject string) *model.SpamAnalysis {
	t.Helper()
	inbox := a.CreatePlain(nil)
	servertest.MustSend(t, srv, inbox.EmailAddress, servertest.SimpleMessage(inbox.EmailAddress, subject))
	_, parsed := servertest.DecodePlain(t, a.Emails(inbox.EmailAddress, true)[0])
	if parsed.SpamAnalysis == nil {
		t.Fatalf("%s: no spam analysis", subject)
	}
	return parsed.SpamAnalysis
}

// A spamd that hangs holds one mail back for the budget; the mails after
// it are stored at once, unscored, saying why, until spamdRetryAfter has
// passed; then one mail asks spamd again (the README's "stored at once").
func TestSpamdBreaker(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) {
		cfg.Now = clock.Now
		cfg.Spamd, cfg.SpamdBudget = hangingSpamd(t), 300*time.Millisecond
	})
	if s := spamOf(t, srv, a, "first"); s.Status != model.SpamError || !strings.HasSuffix(s.Info, "did not answer within 300ms") {
		t.Fatalf("first mail: %+v", s)
	}
	want := "did not answer within 300ms on an earlier mail; it is asked again from 10:00:30"
	for _, subject := range []string{"second", "third"} {
		if s := spamOf(t, srv, a, subject); s.Status != model.SpamError || !strings.HasSuffix(s.Info, want) {
			t.Fatalf("%s mail: %+v, want %q", subject, s, want)
		}
	}
	clock.Advance(31 * time.Second)
	if s := spamOf(t, srv, a, "probe"); !strings.HasSuffix(s.Info, "did not answer within 300ms") {
		t.Fatalf("the mail after the pause did not ask spamd: %+v", s)
	}
	if s := spamOf(t, srv, a, "after probe"); !strings.HasSuffix(s.Info, "it is asked again from 10:01:01") {
		t.Fatalf("the failed probe did not open the breaker again: %+v", s)
	}
}

// A real spamd scores the mail as stored, with the server's Received line:
// no NO_RECEIVED or NO_RELAYS.
func TestSpamdScoresStoredBytes(t *testing.T) {
	addr := spamdtest.Start(t)
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.Spamd, cfg.SpamdBudget = addr, 2*time.Minute })
	s := spamOf(t, srv, a, "traced")
	if s.Status != model.SpamAnalyzed {
		t.Fatalf("analysis %+v", s)
	}
	var names []string
	for _, r := range s.Rules {
		names = append(names, r.Name)
	}
	if slices.Contains(names, "NO_RECEIVED") || slices.Contains(names, "NO_RELAYS") {
		t.Fatalf("spamd scored the mail without its Received line: %v", names)
	}
}

// BenchmarkSpamdHanging: the time to deliver a mail over SMTP while spamd
// hangs, after a first mail has found it hanging (the budget before the
// breaker; at once with it).
func BenchmarkSpamdHanging(b *testing.B) {
	srv, a := servertest.StartAPI(b, func(cfg *server.Config) {
		cfg.Spamd, cfg.SpamdBudget = hangingSpamd(b), 500*time.Millisecond
	})
	inbox := a.CreatePlain(nil)
	msg := servertest.SimpleMessage(inbox.EmailAddress, "hanging spamd")
	servertest.MustSend(b, srv, inbox.EmailAddress, msg)
	for b.Loop() {
		servertest.MustSend(b, srv, inbox.EmailAddress, msg)
	}
}
