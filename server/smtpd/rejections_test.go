package smtpd_test

import (
	"bytes"
	"testing"

	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/servertest"
)

func TestSMTPRejections(t *testing.T) {
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.SMTP.MaxMessageBytes = 64 << 10 })
	in := a.CreatePlain(nil)
	cases := []struct {
		name string
		to   string
		msg  []byte
		code int
	}{
		{"unknown inbox", "nobody@sandbox.test", servertest.SimpleMessage("x", "x"), 550},
		{"unknown domain", "someone@example.com", servertest.SimpleMessage("x", "x"), 550},
		{"too large", in.EmailAddress, append(servertest.SimpleMessage(in.EmailAddress, "big"), bytes.Repeat([]byte("0123456789abcdef\r\n"), 5000)...), 552},
		{"header too large", in.EmailAddress, bytes.Repeat([]byte("X-Filler: y\r\n"), 2500), 552},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := servertest.SendMail(srv.SMTPAddr(), "sender@example.org", []string{c.to}, c.msg)
			if smtpsend.Code(err) != c.code {
				t.Fatalf("error %v, want SMTP %d", err, c.code)
			}
		})
	}
	if n := a.Sync(in.EmailAddress).EmailCount; n != 0 {
		t.Fatalf("rejected mail was stored: %d emails", n)
	}
	// The connection survives a rejected recipient and delivers to the good one.
	if err := servertest.SendMail(srv.SMTPAddr(), "s@example.org", []string{in.EmailAddress}, servertest.SimpleMessage(in.EmailAddress, "ok")); err != nil {
		t.Fatal(err)
	}
	a.WaitForCount(in.EmailAddress, 1)
}
