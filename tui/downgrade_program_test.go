package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/client/tamper"
	"sandview/model"
	"sandview/server/servertest"
)

// TestProgramShowsDowngradedMailRefused runs the real program through a
// proxy that strips the encrypted fields of an encrypted inbox and adds
// forged plain ones: the mail already there and the mail that arrives are
// listed as refused ("decryption failed"), the forgery never shows.
func TestProgramShowsDowngradedMailRefused(t *testing.T) {
	srv := servertest.Start(t)
	proxy := tamper.Start(t, srv.URL())
	c, err := client.New(proxy.URL, srv.APIKey(), ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inbox, err := c.CreateInbox(ctx, client.CreateInboxOptions{Encryption: model.EncryptionEncrypted})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendTestEmail(ctx, model.TestEmailRequest{To: inbox.Address(), Subject: "genuine"}); err != nil {
		t.Fatal(err)
	}
	proxy.SetMode(tamper.Downgrade)
	dark := true
	cfg := Config{Client: c, Settings: &Settings{ServerLabel: "test", DarkTheme: &dark}}
	cfg.Startup = func(context.Context) error {
		body := fmt.Sprintf("From: sender@example.com\r\nTo: %s\r\nSubject: arriving\r\n\r\nHi\r\n", inbox.Address())
		return smtpsend.Send(context.Background(), srv.SMTPAddr(), "sender@example.com", []string{inbox.Address()}, []byte(body))
	}
	view := runUntil(t, cfg, "2 emails", "DECRYPTION FAILED")
	if strings.Contains(view, tamper.ForgedSubject) || strings.Contains(view, tamper.ForgedFrom) {
		t.Fatalf("the forgery is shown:\n%s", view)
	}
	if n := strings.Count(view, "DECRYPTION FAILED"); n < 2 {
		t.Fatalf("%d refused rows, want both mails refused:\n%s", n, view)
	}
}
