package htmltext

import (
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"sandview/model/termtext"
	"sandview/theme"
	"sandview/tui/corpus"
)

// TestRenderLinkAddressInTableCell: a link whose text is a long address,
// in a cell of a data table, is one row: the address cut with "…" (whole
// behind its hyperlink) beside the next cell's text, no token left over.
func TestRenderLinkAddressInTableCell(t *testing.T) {
	body, err := os.ReadFile("testdata/link-in-cell.html")
	if err != nil {
		t.Fatal(err)
	}
	const u = "https://verify.example-app.io/confirm-email-address/abcdef-012345-ghijkl-678901?redirect-to=dashboard"
	style := theme.New(true, false).Markdown()
	for _, width := range []int{30, 37, 40, 44, 51, 58, 65, 72, 80, 93, 120, 200} {
		for _, opts := range []Options{{}, {Style: &style, Hyperlinks: true}} {
			r := Render(string(body), width, opts)
			plain := ansi.Strip(r.Text)
			corpus.AssertWidthsAgree(t, "link in a cell", r.Text)
			if strings.Contains(plain, "xxx") || strings.Count(plain, "in a cell") != 1 || strings.Count(plain, "|")+strings.Count(plain, "│") != 2 {
				t.Fatalf("width %d: garbled table:\n%s", width, plain)
			}
			for _, line := range strings.Split(r.Text, "\n") {
				stripped := ansi.Strip(line)
				if termtext.Width(stripped) > width {
					t.Fatalf("width %d: line too wide: %q", width, stripped)
				}
				if !strings.Contains(stripped, "in a cell") {
					continue
				}
				if !strings.Contains(stripped, "http") {
					t.Fatalf("width %d: the address is not beside its note: %q in\n%s", width, stripped, plain)
				}
				if opts.Hyperlinks && !strings.Contains(line, ansi.SetHyperlink(u)) {
					t.Fatalf("width %d: no hyperlink to the whole address: %q", width, line)
				}
			}
		}
	}
}

// TestRenderPlainListsAddressesWhole: without a terminal (no style) the
// list of links holds each address whole, a long one on a line of its
// own; on a terminal it is cut with "…" to the width, whole behind the
// hyperlink.
func TestRenderPlainListsAddressesWhole(t *testing.T) {
	long := "https://verify.example-app.io/confirm-email-address/abcdef-012345-ghijkl-678901?redirect-to=dashboard&x=" + strings.Repeat("y", 40)
	body := `<p>Please <a href="` + long + `">confirm</a>.</p>`
	r := Render(body, 80, Options{})
	if !strings.Contains(r.Text, "\n[1]\n"+long) {
		t.Fatalf("the address is not whole on a line of its own:\n%s", r.Text)
	}
	style := theme.New(true, false).Markdown()
	r = Render(body, 80, Options{Style: &style, Hyperlinks: true})
	corpus.AssertWidthsAgree(t, "terminal", r.Text)
	if !strings.Contains(r.Text, ansi.SetHyperlink(long)+long[:79]+"…") {
		t.Fatalf("the address is not cut behind its hyperlink:\n%q", r.Text)
	}
}

// TestRenderTooLargeKeepsSpacingAndLinks: HTML over the size laid out is
// shown as its text with words spaced as written (no space before a
// period after a link) and its links numbered, with their list.
func TestRenderTooLargeKeepsSpacingAndLinks(t *testing.T) {
	body := `<p>Paragraph with <b>bold</b> and <a href="https://x.test/a">link</a>.</p><p>See <a href="https://x.test/">https://x.test/</a> too</p>` +
		"<div>" + strings.Repeat("filler text ", maxLayoutBytes/12+1) + "</div>"
	r := Render(body, 80, Options{})
	if r.Problem == "" {
		t.Fatal("no problem for HTML over the limit")
	}
	for _, want := range []string{"Paragraph with bold and link [1].\n", "See https://x.test/ too\n", "\n\nLinks:\n[1] https://x.test/a"} {
		if !strings.Contains(r.Text, want) {
			t.Fatalf("missing %q in %.200q ... %q", want, r.Text, r.Text[max(len(r.Text)-100, 0):])
		}
	}
	if len(r.Links) != 1 || r.Links[0] != "https://x.test/a" {
		t.Fatalf("links = %q", r.Links)
	}
}

// TestRenderNumbersLinksAsTheServerLists: with the server's list of a
// mail's links, "[n]" is the n-th of that list (images in between
// included), the list at the end holds those the text refers to with
// those numbers, and links the server does not list are numbered after
// them.
func TestRenderNumbersLinksAsTheServerLists(t *testing.T) {
	body := `<p><a href="https://shop.test/p/1">Product</a> <img src="https://cdn.test/hero.png"> <a href="https://shop.test/blog">Blog</a> <a href="tel:+4912345">Call</a></p>`
	server := []string{"https://shop.test/p/1", "https://cdn.test/hero.png", "https://shop.test/blog"}
	style := theme.New(true, false).Markdown()
	for _, opts := range []Options{{Links: server}, {Links: server, Style: &style, Hyperlinks: true}} {
		r := Render(body, 80, opts)
		text := ansi.Strip(r.Text)
		for _, want := range []string{"Product [1] [image] Blog [3] Call [4]", "Links:\n[1] https://shop.test/p/1\n[3] https://shop.test/blog\n[4] tel:+4912345"} {
			if !strings.Contains(text, want) {
				t.Fatalf("missing %q in\n%s", want, text)
			}
		}
		if want := append(append([]string{}, server...), "tel:+4912345"); strings.Join(r.Links, " ") != strings.Join(want, " ") {
			t.Fatalf("links = %q, want %q", r.Links, want)
		}
	}
}

// TestRenderPlainKeepsAddressesInTheTextWhole: without a terminal an
// address written in the text and longer than the width is whole, on a
// line of its own; on a terminal it is cut with "…".
func TestRenderPlainKeepsAddressesInTheTextWhole(t *testing.T) {
	long := "https://verify.example-app.io/confirm-email-address/abcdef-012345-ghijkl-678901?redirect-to=dashboard"
	body := `<p>Copy this into your browser: ` + long + ` and go on.</p>`
	r := Render(body, 80, Options{})
	if !strings.Contains(r.Text, "\n"+long+"\n") {
		t.Fatalf("the address is not whole on a line of its own:\n%s", r.Text)
	}
	style := theme.New(true, false).Markdown()
	r = Render(body, 80, Options{Style: &style})
	if text := ansi.Strip(r.Text); strings.Contains(text, long) || !strings.Contains(text, long[:78]+"…") {
		t.Fatalf("the address is not cut on a terminal:\n%s", text)
	}
}
