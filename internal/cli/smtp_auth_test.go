package cli

import (
	"strings"
	"testing"

	"github.com/emersion/go-sasl"

	"sandview/client/smtpsend"
)

// TestCLIShowsSMTPLogin: a mail sent with SMTP AUTH shows its login in
// `email show` (text and JSON), sanitized; one sent without shows none.
func TestCLIShowsSMTPLogin(t *testing.T) {
	h := newCLI(t)
	enc := decodeJSON[inboxView](t, h.must("inbox", "create", "--json"))
	send := func(auth sasl.Client, subject string) {
		msg := "From: app@example.org\r\nTo: " + enc.EmailAddress + "\r\nSubject: " + subject + "\r\n\r\nhi\r\n"
		if err := (smtpsend.Dialer{Auth: auth}).Send(t.Context(), h.srv.SMTPAddr(), "app@example.org", []string{enc.EmailAddress}, []byte(msg)); err != nil {
			t.Fatalf("send %s: %v", subject, err)
		}
	}
	send(sasl.NewPlainClient("", "ci-bot\x1b[31m", "any"), "with login")
	send(nil, "without login")
	emails := decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", enc.EmailAddress, "--json"))
	if len(emails) != 2 {
		t.Fatalf("listed %d emails, want 2", len(emails))
	}
	for _, e := range emails {
		text := h.must("email", "show", e.ID, "--inbox", enc.EmailAddress).stdout
		shown := decodeJSON[emailView](t, h.must("email", "show", e.ID, "--inbox", enc.EmailAddress, "--json"))
		switch e.Subject {
		case "with login":
			if !strings.Contains(text, "Login:         ci-bot (SMTP AUTH)") || strings.Contains(text, "\x1b") || shown.SMTPUser != "ci-bot\x1b[31m" {
				t.Fatalf("email show of a mail sent with SMTP AUTH:\n%s\nJSON smtpUser %q", text, shown.SMTPUser)
			}
		default:
			if strings.Contains(text, "Login:") || shown.SMTPUser != "" {
				t.Fatalf("email show of a mail sent without SMTP AUTH:\n%s", text)
			}
		}
	}
}
