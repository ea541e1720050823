package smtpd_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/servertest"
)

// TestSMTPRecipientLimitIsRecorded: RCPTs past the limit of 100 are
// refused with 452 4.5.3 (the text go-smtp answers), each refusal is
// recorded with the refused recipient and reaches a watcher, the accepted
// ones still get the mail, EHLO advertises the limit, and a new
// transaction counts from zero.
func TestSMTPRecipientLimitIsRecorded(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	seen := make(chan server.Refusal, 100)
	stop := srv.WatchRefusals(func(r server.Refusal) { seen <- r })
	defer stop()

	sc, _, _ := dialSMTP(t, srv.SMTPAddr(), "127.0.0.1")
	if code, text := sc.cmd("EHLO client.example"); code != 250 || !strings.Contains(text, "LIMITS RCPTMAX=100") {
		t.Fatalf("EHLO: %d %q, want LIMITS RCPTMAX=100", code, text)
	}
	if code, _ := sc.cmd("MAIL FROM:<many@example.org>"); code != 250 {
		t.Fatalf("MAIL: %d", code)
	}
	refused := 0
	for i := range 150 {
		rcpt := in.EmailAddress
		if i >= 100 {
			rcpt = fmt.Sprintf("extra%d@example.net", i)
		}
		code, text := sc.cmd("RCPT TO:<" + rcpt + ">")
		switch {
		case i < 100 && code != 250:
			t.Fatalf("RCPT %d: %d %q, want 250", i, code, text)
		case i >= 100 && (code != 452 || text != "4.5.3 Maximum limit of 100 recipients reached"):
			t.Fatalf("RCPT %d: %d %q, want 452 4.5.3 Maximum limit of 100 recipients reached", i, code, text)
		case i >= 100:
			refused++
			var r server.Refusal
			select {
			case r = <-seen:
			case <-time.After(10 * time.Second):
				t.Fatalf("RCPT %d: the refusal was not recorded", i)
			}
			if r.Code != 452 || r.MailFrom != "many@example.org" || len(r.Rcpt) != 1 || r.Rcpt[0] != rcpt || r.Reason != "Maximum limit of 100 recipients reached" {
				t.Fatalf("refusal %d: %+v", i, r)
			}
		}
	}
	if refused != 50 {
		t.Fatalf("%d refusals, want 50", refused)
	}
	if n := len(srv.Refusals()); n != 50 {
		t.Fatalf("refusal log holds %d, want 50", n)
	}
	if code, _ := sc.cmd("DATA"); code != 354 {
		t.Fatalf("DATA: %d", code)
	}
	if _, err := sc.c.Write(append(servertest.SimpleMessage(in.EmailAddress, "many"), ".\r\n"...)); err != nil {
		t.Fatal(err)
	}
	if code, text := sc.reply(); code != 250 {
		t.Fatalf("end of DATA: %d %q", code, text)
	}
	if n := len(a.Emails(in.EmailAddress, false)); n != 1 {
		t.Fatalf("inbox holds %d emails, want 1", n)
	}
	// A new transaction may name 100 recipients again.
	if code, _ := sc.cmd("MAIL FROM:<again@example.org>"); code != 250 {
		t.Fatalf("MAIL: %d", code)
	}
	for i := range 100 {
		if code, text := sc.cmd("RCPT TO:<" + in.EmailAddress + ">"); code != 250 {
			t.Fatalf("second transaction RCPT %d: %d %q", i, code, text)
		}
	}
	if code, _ := sc.cmd("RSET"); code != 250 {
		t.Fatalf("RSET: %d", code)
	}
	sc.cmd("MAIL FROM:<again@example.org>")
	if code, text := sc.cmd("RCPT TO:<" + in.EmailAddress + ">"); code != 250 {
		t.Fatalf("RCPT after RSET: %d %q", code, text)
	}
}
