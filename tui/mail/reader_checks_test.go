package mail

import (
	"strings"
	"testing"

	"sandview/model"
	"sandview/tui/tuitest"
)

// TestChecksTab: 7 shows the HTML compatibility report, the features the
// HTML uses that clients lack with the clients named; a text-only email
// says there is nothing to check.
func TestChecksTab(t *testing.T) {
	h := newHarness(t, 200, 50)
	e := tuitest.Emails()[0]
	e.HTML = `<div style="display:grid"><p>Hi</p></div>`
	plain := tuitest.Emails()[1]
	plain.ID, plain.HTML = "plain-one", ""
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{e, plain}})
	h.Press("enter", "7")
	view := h.shown()
	for _, want := range []string{"7 Checks", "HTML compatibility", "of 48 email clients", "display:grid (css-display-grid",
		"not supported: ", "Outlook (", "Data: caniemail 2.0.2"} {
		if !strings.Contains(view, want) {
			t.Fatalf("checks tab lacks %q:\n%s", want, view)
		}
	}
	h.Press("J")
	if view := h.shown(); !strings.Contains(view, "No HTML part") {
		t.Fatalf("a text-only email:\n%s", view)
	}
}
