package tui

import (
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"sandview/model"
	"sandview/tui/tuitest"
)

// TestGoldenHTMLReader opens a newsletter in the program at 80x24 and
// shows its HTML part: laid out as designed, in the reader's width.
func TestGoldenHTMLReader(t *testing.T) {
	html, err := os.ReadFile("htmltext/testdata/mail/newsletter.html")
	if err != nil {
		t.Fatal(err)
	}
	e := model.Email{ID: "n1", From: "ACME Shop <news@acme-shop.example>", To: []string{tuitest.DemoAddr},
		Subject: "Spring Sale: 70% off everything", Text: "Spring sale: see the HTML version.", HTML: string(html), ReceivedAt: tuitest.Now()}
	svc := tuitest.NewService(tuitest.Inboxes()...)
	svc.SetEmails(tuitest.DemoAddr, []model.Email{e})
	h := newHarnessOver(t, svc, 80, 24, true)
	h.Press("enter", "h", "down", "down", "down", "down", "down", "down")
	view := ansi.Strip(h.view())
	for _, want := range []string{"SPRING70 at checkout", "is now only $20.99 $50.99"} {
		if !strings.Contains(view, want) {
			t.Fatalf("missing %q in\n%s", want, view)
		}
	}
	golden.RequireEqual(t, h.rendered())
}
