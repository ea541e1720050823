package cli

import (
	"net/smtp"
	"strings"
	"testing"
)

// sendHTML sends an HTML mail to a new inbox and returns its id.
func sendHTML(t *testing.T, h *cli, subject, body string) string {
	t.Helper()
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	msg := "From: a@example.org\r\nTo: " + address + "\r\nSubject: " + subject + "\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: text/html; charset=utf-8\r\n\r\n" + body + "\r\n"
	if err := smtp.SendMail(h.srv.SMTPAddr(), nil, "a@example.org", []string{address}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	h.must("wait", "--inbox", address, "--subject", "^"+subject+"$", "--timeout", "20s")
	return decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", address, "--json"))[0].ID
}

// TestEmailCheckHTML: the compatibility report names the features the
// HTML uses that clients lack, with a score, as text and as JSON.
func TestEmailCheckHTML(t *testing.T) {
	h := newCLI(t)
	id := sendHTML(t, h, "grid", `<div style="display:grid; gap:8px"><p>Hi</p></div>`)
	text := h.must("email", "check", id).stdout
	if !strings.Contains(text, "HTML compatibility: ") || !strings.Contains(text, "display:grid (css-display-grid") ||
		!strings.Contains(text, "not supported: ") || !strings.Contains(text, "Outlook (") {
		t.Fatalf("email check:\n%s", text)
	}
	v := decodeJSON[checkView](t, h.must("email", "check", id, "--json"))
	if v.ID != id || v.HTML == nil || v.HTML.Score <= 0 || v.HTML.Score >= 100 || v.HTML.Clients < 40 {
		t.Fatalf("email check --json: %+v", v)
	}
	found := false
	for _, f := range v.HTML.Features {
		found = found || f.Slug == "css-gap" && len(f.Unsupported) > 0
	}
	if !found {
		t.Fatalf("css-gap not reported: %+v", v.HTML.Features)
	}
}
