package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"sandview/client/smtpsend"
	"sandview/crypto"
	"sandview/model"
	"sandview/server"
	"sandview/server/core"
	"sandview/server/emailauth"
	"sandview/server/servertest"
)

const catchAllAddress = "all@sandbox.test"

func withCatchAll(cfg *server.Config) { cfg.CatchAll = catchAllAddress }

// TestCatchAllTakesUnmatchedMail: mail for addresses no inbox has, in any
// domain, lands in the catch-all inbox (created plain when missing) with
// its recipients as sent; an inbox that matches gets its own copy, and the
// catch-all one copy for all the rest. The event stream announces it as
// mail of the catch-all inbox.
func TestCatchAllTakesUnmatchedMail(t *testing.T) {
	srv, a := servertest.StartAPI(t, withCatchAll)
	if srv.CatchAll() != catchAllAddress {
		t.Fatalf("CatchAll() = %q", srv.CatchAll())
	}
	stream := servertest.OpenStream(t, srv, crypto.PlainInboxHash(catchAllAddress))
	own := a.CreatePlain(nil)

	lone := []byte("From: a@example.org\r\nTo: Nobody <nobody@elsewhere.example>\r\nSubject: lone\r\n\r\nhi\r\n")
	if err := servertest.SendMail(srv.SMTPAddr(), "a@example.org", []string{"Nobody@Elsewhere.example"}, lone); err != nil {
		t.Fatalf("mail to an unknown address in an unserved domain: %v", err)
	}
	ev := stream.NextNotification(t)
	if ev.InboxID != crypto.PlainInboxHash(catchAllAddress) {
		t.Fatalf("stream event %+v, want one of the catch-all inbox", ev)
	}
	value := receivedLine(t, storedRaw(t, a, catchAllAddress, ev.EmailID))
	if !strings.Contains(value, " for <nobody@elsewhere.example>; ") {
		t.Fatalf("Received: %s\nwant the real recipient in its for clause", value)
	}
	meta, _ := servertest.DecodePlain(t, a.Email(catchAllAddress, ev.EmailID))
	if len(meta.To) != 1 || meta.To[0] != `"Nobody" <nobody@elsewhere.example>` {
		t.Fatalf("metadata to %q, want the header's recipient", meta.To)
	}

	group := []byte("From: a@example.org\r\nTo: x@sandbox.test, y@localhost, " + own.EmailAddress + "\r\nSubject: group\r\n\r\nhi\r\n")
	if err := servertest.SendMail(srv.SMTPAddr(), "a@example.org", []string{"x@sandbox.test", own.EmailAddress, "y@localhost", catchAllAddress}, group); err != nil {
		t.Fatal(err)
	}
	groupEv := stream.NextNotification(t)
	if got := a.Emails(own.EmailAddress, false); len(got) != 1 {
		t.Fatalf("the matching inbox holds %d emails, want 1", len(got))
	}
	if got := a.Emails(catchAllAddress, false); len(got) != 2 {
		t.Fatalf("the catch-all inbox holds %d emails, want 2 (one per message)", len(got))
	}
	if value := receivedLine(t, storedRaw(t, a, catchAllAddress, groupEv.EmailID)); strings.Contains(value, " for <") {
		t.Fatalf("Received: %s\nwant no for clause for a copy delivered for several recipients", value)
	}
	meta, _ = servertest.DecodePlain(t, a.Email(catchAllAddress, groupEv.EmailID))
	if len(meta.To) != 3 {
		t.Fatalf("metadata to %q, want the three header recipients", meta.To)
	}
	// The envelope of each copy: MAIL FROM, and the RCPT TOs it was
	// accepted for (the catch-all's: every one it took, in order).
	wantEnvelope := model.Envelope{From: "a@example.org", To: []string{"x@sandbox.test", "y@localhost", catchAllAddress}}
	if meta.Envelope == nil || !reflect.DeepEqual(*meta.Envelope, wantEnvelope) {
		t.Fatalf("catch-all copy's envelope %+v, want %+v", meta.Envelope, wantEnvelope)
	}
	ownMeta, _ := servertest.DecodePlain(t, a.Emails(own.EmailAddress, false)[0])
	if want := (model.Envelope{From: "a@example.org", To: []string{own.EmailAddress}}); ownMeta.Envelope == nil || !reflect.DeepEqual(*ownMeta.Envelope, want) {
		t.Fatalf("own copy's envelope %+v, want %+v", ownMeta.Envelope, want)
	}
	if value := receivedLine(t, storedRaw(t, a, own.EmailAddress, a.Emails(own.EmailAddress, false)[0].ID)); !strings.Contains(value, " for <"+own.EmailAddress+">; ") {
		t.Fatalf("Received: %s\nwant its one recipient in the for clause", value)
	}
}

// TestCatchAllKeepsLimits: the catch-all inbox is an inbox like any other
// for the size limit and eviction.
func TestCatchAllKeepsLimits(t *testing.T) {
	srv, a := servertest.StartAPI(t, withCatchAll, func(cfg *server.Config) { cfg.MaxEmailsPerInbox, cfg.SMTP.MaxMessageBytes = 2, 4096 })
	for i := range 3 {
		servertest.MustSend(t, srv, fmt.Sprintf("u%d@sandbox.test", i), servertest.SimpleMessage("u@sandbox.test", fmt.Sprintf("m%d", i)))
	}
	waitFor(t, "the catch-all inbox to hold 2 emails (the oldest evicted)", func() bool { return len(a.Emails(catchAllAddress, false)) == 2 })
	if meta, _ := servertest.DecodePlain(t, a.Emails(catchAllAddress, false)[1]); meta.Subject != "m1" {
		t.Fatalf("the catch-all inbox kept %q as its oldest, want m1", meta.Subject)
	}
	big := append(servertest.SimpleMessage("u@sandbox.test", "big"), strings.Repeat(strings.Repeat("x", 70)+"\r\n", 120)...)
	if err := servertest.SendMail(srv.SMTPAddr(), "a@example.org", []string{"u@sandbox.test"}, big); smtpsend.Code(err) != 552 {
		t.Fatalf("oversized mail for the catch-all: %v, want 552", err)
	}
}

// TestCatchAllKeptAlive: the server renews the catch-all inbox's TTL
// before it runs out, keeping its mail, and creates it again when it is
// deleted.
func TestCatchAllKeptAlive(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	logs := &servertest.SyncBuffer{}
	srv, a := servertest.StartAPI(t, withCatchAll, func(cfg *server.Config) {
		cfg.Now, cfg.MaxTTL = clock.Now, 2*time.Hour
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	servertest.MustSend(t, srv, "someone@sandbox.test", servertest.SimpleMessage("someone@sandbox.test", "kept"))

	clock.Advance(90 * time.Minute) // less than half the TTL is left
	waitFor(t, "the catch-all inbox to be renewed", func() bool { return strings.Contains(logs.String(), "renewed the catch-all inbox") })
	clock.Advance(90 * time.Minute) // past the first expiry
	if got := a.Emails(catchAllAddress, false); len(got) != 1 {
		t.Fatalf("the renewed catch-all inbox holds %d emails, want its 1", len(got))
	}

	a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+catchAllAddress, nil, nil)
	waitFor(t, "the catch-all inbox to be created again", func() bool {
		status, _ := a.Do("GET", "/api/inboxes/"+catchAllAddress+"/sync", nil)
		return status == http.StatusOK
	})
	servertest.MustSend(t, srv, "again@sandbox.test", servertest.SimpleMessage("again@sandbox.test", "again"))
	if got := a.Emails(catchAllAddress, false); len(got) != 1 {
		t.Fatalf("the new catch-all inbox holds %d emails, want 1", len(got))
	}
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestEncryptedCatchAll: an existing encrypted inbox can be the catch-all
// (SetCatchAll at run time, as `sandview --local` does): catch-all mail is
// encrypted to its key.
func TestEncryptedCatchAll(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreateEncrypted(nil)
	if err := srv.SetCatchAll(context.Background(), strings.ToUpper(in.EmailAddress)); err != nil {
		t.Fatal(err)
	}
	servertest.MustSend(t, srv, "stray@localhost", servertest.SimpleMessage("stray@localhost", "stray"))
	list := a.Emails(in.EmailAddress, true)
	if len(list) != 1 || !list[0].Encrypted() || list[0].Metadata != "" {
		t.Fatalf("catch-all records %+v, want one encrypted email", list)
	}
	if err := srv.SetCatchAll(context.Background(), ""); err != nil || srv.CatchAll() != "" {
		t.Fatalf("turning the catch-all off: %v, CatchAll() = %q", err, srv.CatchAll())
	}
	if err := servertest.SendMail(srv.SMTPAddr(), "a@example.org", []string{"stray@localhost"}, servertest.SimpleMessage("stray@localhost", "x")); smtpsend.Code(err) != 550 {
		t.Fatalf("mail for an unknown address without a catch-all: %v, want 550", err)
	}
}

// TestCatchAllStartErrors: a catch-all the server cannot serve stops the
// start with an error that says why.
func TestCatchAllStartErrors(t *testing.T) {
	for _, c := range []struct {
		address, policy, want string
	}{
		{"all@elsewhere.example", "", `domain "elsewhere.example" is not allowed`},
		{"sandbox.test", "", "give a whole address"},
		{"a b@sandbox.test", "", "not allowed"},
		{"all@sandbox.test", model.PolicyAlways, "plain inboxes cannot be created"},
	} {
		srv, err := server.Start(context.Background(), server.Config{
			HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", CatchAll: c.address,
			Options: core.Options{APIKey: servertest.APIKey, Resolver: &emailauth.StaticResolver{}, EncryptionPolicy: c.policy},
		})
		if err == nil {
			srv.Close()
			t.Errorf("catch-all %q (policy %q): the server started", c.address, c.policy)
			continue
		}
		if !strings.Contains(err.Error(), "catch-all") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("catch-all %q: error %q, want one about the catch-all saying %q", c.address, err, c.want)
		}
	}
}
