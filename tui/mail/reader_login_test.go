package mail

import (
	"strings"
	"testing"

	"sandview/model"
	"sandview/tui/tuitest"
)

// TestReaderShowsSMTPLogin: the login a mail was sent with over SMTP AUTH
// shows on the reader's From line, sanitized.
func TestReaderShowsSMTPLogin(t *testing.T) {
	h := newHarness(t, 160, 37)
	live := model.Email{ID: "n1", From: "app@example.net", To: []string{tuitest.DemoAddr}, Subject: "Sent with a login",
		ReceivedAt: tuitest.Now(), HasContent: true, Text: "hi", Metadata: map[string]any{model.MetadataSMTPUser: "ci-bot\x1b[2J"}}
	h.svc.AddEmail(tuitest.DemoAddr, live)
	h.Send(feedNewEmail(tuitest.DemoAddr, live))
	h.Press("home", "enter")
	if view := h.shown(); !strings.Contains(view, "app@example.net  (SMTP login ci-bot)") {
		t.Fatalf("the reader does not show the SMTP login:\n%s", view)
	}
}
