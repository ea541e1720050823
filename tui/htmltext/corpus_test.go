package htmltext

import (
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"sandview/internal/corpus"
)

// TestCorpusRendersWithAgreeingWidths renders the HTML body of every corpus
// mail, with and without hyperlinks, and measures every line.
func TestCorpusRendersWithAgreeingWidths(t *testing.T) {
	mails, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	rendered := 0
	for _, m := range mails {
		if m.Email.HTML == "" {
			continue
		}
		plain := Render(m.Email.HTML, Options{})
		corpus.AssertWidthsAgree(t, m.Name, plain.Text)
		assertLinksListed(t, m.Name, plain)
		linked := Render(m.Email.HTML, Options{Hyperlinks: true})
		corpus.AssertWidthsAgree(t, m.Name+" with hyperlinks", linked.Text)
		if got := ansi.Strip(linked.Text); got != plain.Text {
			t.Fatalf("%s: the text with hyperlinks, stripped, differs from the text without:\n%s\n---\n%s", m.Name, got, plain.Text)
		}
		rendered++
	}
	if rendered < 30 {
		t.Fatalf("only %d corpus mails have HTML", rendered)
	}
}

// assertLinksListed checks that every numbered link is listed in full.
func assertLinksListed(t *testing.T, what string, r Result) {
	t.Helper()
	for i, link := range r.Links {
		if !strings.Contains(r.Text, "\n["+strconv.Itoa(i+1)+"] "+link+"\n") && !strings.HasSuffix(r.Text, "\n["+strconv.Itoa(i+1)+"] "+link) {
			t.Fatalf("%s: link %d %q is not listed in full", what, i+1, link)
		}
	}
}
