package mail

import (
	"strings"
	"testing"

	"sandview/model"
	"sandview/tui/tuitest"
)

// TestDeceptiveLinkFlaggedInReader: a link whose text reads
// "https://pay\u200bpal.com/login" and leads to evil.test is flagged in
// the body, next to the link, and in the Links tab, naming the real host;
// a link whose text is its host is not.
func TestDeceptiveLinkFlaggedInReader(t *testing.T) {
	h := newHarness(t, 200, 50)
	e := tuitest.Emails()[0]
	e.HTML = `<p>Your account: <a href="https://evil.test/x">https://pay` + "\u200b" + `pal.com/login</a></p>
		<p>Docs: <a href="https://example.org/docs">example.org</a></p>`
	e.Text, e.Links = "", []string{"https://evil.test/x", "https://example.org/docs"}
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{e}})
	h.Press("enter")
	const warning = "⚠ link goes to evil.test, not paypal.com"
	view := h.shown()
	if !strings.Contains(view, "https://paypal.com/login [1] ("+warning+")") || strings.Count(view, "⚠") != 1 {
		t.Fatalf("body without the warning next to the link:\n%s", view)
	}
	h.Press("3")
	view = h.shown()
	if !strings.Contains(view, "https://evil.test/x  "+warning) || strings.Count(view, "⚠") != 1 {
		t.Fatalf("links tab without the warning on the deceptive link only:\n%s", view)
	}
}
