package mail

import (
	"strings"
	"testing"

	"sandview/tui/tuitest"
)

// TestCopyCodeCopiesTheOneTimeCode: Y copies the open mail's code, the
// one `wait --extract code` prints; with no mail open, on a mail without a
// code or one that could not be opened, it says so and copies nothing.
func TestCopyCodeCopiesTheOneTimeCode(t *testing.T) {
	h := newHarness(t, 140, 37)
	withCode := tuitest.Emails()[0]
	withCode.ID, withCode.Subject, withCode.ReceivedAt = "code1", "Sign in to Acme", tuitest.Now()
	withCode.Text, withCode.HTML = "Your verification code is 739201. It expires in 10 minutes.", ""
	emails := append(tuitest.Emails(), withCode)
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: emails})
	if h.selected() != "code1" {
		t.Fatalf("the newest mail is not selected: %s", h.selected())
	}
	if msgs := h.Press("Y"); tuitest.Contains(msgs, "copied") || !strings.Contains(h.shown(), "open a message first") {
		t.Fatalf("Y with no message open: %v\n%s", msgs, h.shown())
	}
	if msgs := h.Press("enter", "Y"); !tuitest.Contains(msgs, "739201") {
		t.Fatalf("Y in the reader did not copy the code: %v\n%s", msgs, h.shown())
	}
	if msgs := h.Press("q", "down", "enter", "Y"); tuitest.Contains(msgs, "copied") || !strings.Contains(h.shown(), "no one-time code in this email") {
		t.Fatalf("Y on a mail without a code: %v\n%s", msgs, h.shown())
	}
	if msgs := h.Press("q", "down", "down", "enter", "Y"); tuitest.Contains(msgs, "copied") || !strings.Contains(h.shown(), "could not be opened") {
		t.Fatalf("Y on a mail that could not be opened: %v\n%s", msgs, h.shown())
	}
}
