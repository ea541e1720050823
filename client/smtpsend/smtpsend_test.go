package smtpsend_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"

	"github.com/emersion/go-sasl"

	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// TestSendPlainUnlessAskedForSTARTTLS: to a server that offers STARTTLS
// with a certificate of its own, the zero Dialer sends plain; a Dialer
// with StartTLS sends over TLS when the certificate verifies (the pool
// given), and sends nothing when it does not, or when the server offers
// no STARTTLS.
func TestSendPlainUnlessAskedForSTARTTLS(t *testing.T) {
	serverTLS, certPEM := servertest.SelfSignedTLS(t)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	srv, api := servertest.StartAPI(t, func(c *server.Config) { c.SMTP.TLSConfig = serverTLS })
	in := api.CreatePlain(nil)
	ctx := t.Context()
	msg := func(subject string) []byte { return servertest.SimpleMessage(in.EmailAddress, subject) }

	if err := smtpsend.Send(ctx, srv.SMTPAddr(), "a@example.org", []string{in.EmailAddress}, msg("plain")); err != nil {
		t.Fatalf("plain to a server offering STARTTLS: %v", err)
	}
	api.WaitForCount(in.EmailAddress, 1)

	trusting := smtpsend.Dialer{StartTLS: &tls.Config{RootCAs: pool}}
	c, err := trusting.Dial(ctx, srv.SMTPAddr())
	if err != nil {
		t.Fatalf("STARTTLS with the certificate trusted: %v", err)
	}
	if err := smtpsend.SendOn(c, "a@example.org", []string{in.EmailAddress}, msg("over tls")); err != nil {
		t.Fatal(err)
	}
	if state, ok := c.TLSConnectionState(); !ok || !state.HandshakeComplete {
		t.Fatal("the trusting Dialer's session is not over TLS")
	}
	if err := c.Quit(); err != nil {
		t.Fatal(err)
	}
	api.WaitForCount(in.EmailAddress, 2)

	err = smtpsend.Dialer{StartTLS: &tls.Config{}}.Send(ctx, srv.SMTPAddr(), "a@example.org", []string{in.EmailAddress}, msg("unverified"))
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("STARTTLS with an unverifiable certificate: %v; want a certificate error", err)
	}

	plainSrv, plainAPI := servertest.StartAPI(t)
	other := plainAPI.CreatePlain(nil)
	err = trusting.Send(ctx, plainSrv.SMTPAddr(), "a@example.org", []string{other.EmailAddress}, msg("no tls"))
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("StartTLS to a server without it: %v; want it refused", err)
	}
	if n := len(api.Emails(in.EmailAddress, false)) + len(plainAPI.Emails(other.EmailAddress, false)); n != 2 {
		t.Fatalf("%d mails stored, want the 2 sent plain and over verified TLS", n)
	}
}

// TestSendLogsInAndReportsRefusals: AUTH PLAIN before sending; a refused
// recipient's code is Code's; a cancelled context sends nothing.
func TestSendLogsInAndReportsRefusals(t *testing.T) {
	srv, api := servertest.StartAPI(t)
	in := api.CreatePlain(nil)
	login := smtpsend.Dialer{Auth: sasl.NewPlainClient("", "ci-bot", "any")}
	if err := login.Send(t.Context(), srv.SMTPAddr(), "a@example.org", []string{in.EmailAddress}, servertest.SimpleMessage(in.EmailAddress, "login")); err != nil {
		t.Fatalf("with AUTH PLAIN: %v", err)
	}
	api.WaitForCount(in.EmailAddress, 1)
	if _, parsed := servertest.DecodePlain(t, api.Emails(in.EmailAddress, true)[0]); parsed.Metadata[model.MetadataSMTPUser] != "ci-bot" {
		t.Fatalf("metadata %v, want the SMTP user ci-bot", parsed.Metadata)
	}

	err := smtpsend.Send(t.Context(), srv.SMTPAddr(), "a@example.org", []string{"nobody@" + strings.SplitN(in.EmailAddress, "@", 2)[1]}, []byte("Subject: x\r\n\r\nx\r\n"))
	if smtpsend.Code(err) != 550 {
		t.Fatalf("to an unknown inbox: %v (code %d), want 550", err, smtpsend.Code(err))
	}
	if smtpsend.Code(nil) != 0 {
		t.Fatal("Code(nil) is not 0")
	}

	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := smtpsend.Send(cancelled, srv.SMTPAddr(), "a@example.org", []string{in.EmailAddress}, []byte("Subject: x\r\n\r\nx\r\n")); err == nil {
		t.Fatal("a cancelled context sent")
	}
	if n := len(api.Emails(in.EmailAddress, false)); n != 1 {
		t.Fatalf("%d mails after the cancelled send, want 1", n)
	}
}
