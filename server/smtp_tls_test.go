package server_test

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/core"
	"sandview/server/servertest"
	"sandview/server/smtpd"
)

// TestSMTPRequireTLS: with SMTP.RequireTLS, EHLO offers STARTTLS and no
// AUTH, MAIL and AUTH are refused with 530 5.7.0 (and recorded as
// refusals); after STARTTLS AUTH is offered and mail is taken. Requiring
// TLS without a certificate is a configuration error.
func TestSMTPRequireTLS(t *testing.T) {
	_, err := server.Start(context.Background(), server.Config{HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Options: core.Options{APIKey: "k"}, SMTP: smtpd.Settings{RequireTLS: true}})
	if err == nil || !strings.Contains(err.Error(), "requiring TLS") {
		t.Fatalf("requiring TLS without a certificate: %v", err)
	}
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) {
		cfg.SMTP.TLSConfig, _ = servertest.SelfSignedTLS(t)
		cfg.SMTP.RequireTLS = true
	})
	in := a.CreatePlain(nil)
	c, err := smtp.Dial(srv.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("client.example"); err != nil {
		t.Fatal(err)
	}
	starttls, _ := c.Extension("STARTTLS")
	auth, _ := c.Extension("AUTH")
	if !starttls || auth {
		t.Fatalf("before STARTTLS: STARTTLS %v, AUTH %v; want STARTTLS alone", starttls, auth)
	}
	var refused *smtp.SMTPError
	wantTLS := func(what string, err error) {
		t.Helper()
		if !errors.As(err, &refused) || refused.Code != 530 || refused.EnhancedCode != (smtp.EnhancedCode{5, 7, 0}) || refused.Message != "Must issue a STARTTLS command first" {
			t.Fatalf("%s before STARTTLS: %v", what, err)
		}
	}
	wantTLS("MAIL", c.Mail("s@example.org", nil))
	// A refused AUTH ends the exchange: another connection.
	other, err := smtp.Dial(srv.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	wantTLS("AUTH", other.Auth(sasl.NewPlainClient("", "u", "p")))
	if got := srv.Refusals(); len(got) != 2 || got[0].Code != 530 || got[0].Reason != "Must issue a STARTTLS command first" {
		t.Fatalf("refusals %+v", got)
	}
	// go-smtp's client starts TLS only on a connection of its own.
	c, err = smtp.DialStartTLS(srv.SMTPAddr(), &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"})
	if err != nil {
		t.Fatalf("STARTTLS: %v", err)
	}
	defer c.Close()
	if auth, _ := c.Extension("AUTH"); !auth {
		t.Fatal("no AUTH after STARTTLS")
	}
	if err := c.Auth(sasl.NewPlainClient("", "u", "p")); err != nil {
		t.Fatalf("AUTH after STARTTLS: %v", err)
	}
	if err := smtpsend.SendOn(c, "s@example.org", []string{in.EmailAddress}, servertest.SimpleMessage(in.EmailAddress, "required tls")); err != nil {
		t.Fatal(err)
	}
	a.WaitForCount(in.EmailAddress, 1)
}
