package htmltext

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"sandview/theme"
	"sandview/tui/corpus"
)

// readerWidths are the widths of the reader's body in a terminal of 80x24
// (the reader fills it, within its border) and of 200x50 (the reader takes
// half of it at least, issue 20).
var readerWidths = []struct {
	size  string
	width int
}{{"80x24", 78}, {"200x50", 98}}

// testMail reads a test mail's HTML from testdata/mail.
func testMail(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mail", name+".html"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGoldenReader lays out a newsletter (hero heading, bold code, struck
// price, product table, buttons, images, hidden preheader), a receipt with
// a table, a password reset with a button and a quoted reply at the
// reader's widths: in the dark theme with hyperlinks, and as the plain
// text of `email show --html` into a pipe.
func TestGoldenReader(t *testing.T) {
	dark := theme.New(true, false).Markdown()
	for _, name := range []string{"newsletter", "receipt", "password-reset", "quoted-reply"} {
		body := testMail(t, name)
		for _, size := range readerWidths {
			t.Run(name+"_"+size.size, func(t *testing.T) {
				r := Render(body, size.width, Options{Style: &dark, Hyperlinks: true})
				if r.Problem != "" {
					t.Fatal(r.Problem)
				}
				assertLaidOut(t, name, r, size.width)
				assertOnlyOwnSequences(t, name, r.Text)
				golden.RequireEqual(t, []byte(r.Text))
			})
			t.Run(name+"_"+size.size+"_plain", func(t *testing.T) {
				r := Render(body, size.width, Options{})
				assertLaidOut(t, name, r, size.width)
				golden.RequireEqual(t, []byte(r.Text))
			})
		}
	}
}

// TestNewsletterReadsAsDesigned checks the points of the newsletter one by
// one, in every theme.
func TestNewsletterReadsAsDesigned(t *testing.T) {
	body := testMail(t, "newsletter")
	for _, th := range []theme.Theme{theme.New(true, false), theme.New(false, false), theme.New(true, true)} {
		style := th.Markdown()
		r := Render(body, 78, Options{Style: &style})
		text := ansi.Strip(r.Text)
		for _, want := range []string{"Spring Sale: 70% off everything", "[ Buy now ] [2]", "[image: Spring flowers on a shop window]", "Widget Pro", "$20.99"} {
			if !strings.Contains(text, want) {
				t.Fatalf("dark %v, no colour %v: %q missing in\n%s", th.Dark, th.NoColor, want, text)
			}
		}
		for _, unwanted := range []string{"biggest sale", "****", "**SPRING70**", "~~", "open.gif"} {
			if strings.Contains(text, unwanted) {
				t.Fatalf("dark %v, no colour %v: %q shown in\n%s", th.Dark, th.NoColor, unwanted, text)
			}
		}
		// The product table has its cells side by side.
		if !regexp.MustCompile(`Widget Pro +[│|] +\$50\.99 +[│|] +\$20\.99`).MatchString(text) {
			t.Fatalf("the product table is not laid out as a table:\n%s", text)
		}
		assertAttribute(t, r.Text, "SPRING70", "1")
		assertAttribute(t, r.Text, "every\x1b[m product", "3")
		assertAttribute(t, r.Text, "[image: Widget Pro]", "2")
	}
}

// TestStruckPriceIsStruck: the price a newsletter strikes out carries the
// strikethrough attribute (SGR 9), the price it keeps does not.
func TestStruckPriceIsStruck(t *testing.T) {
	for _, th := range []theme.Theme{theme.New(true, false), theme.New(true, true)} {
		style := th.Markdown()
		r := Render(`<p>Only <b>$20.99</b> <s>$50.99</s>, or <del>$19.00</del> <strike>$18.00</strike></p>`, 80, Options{Style: &style})
		for _, struck := range []string{"$50.99", "$19.00", "$18.00"} {
			assertAttribute(t, r.Text, struck, "9")
		}
		if params := attributesBefore(r.Text, "$20.99"); params["9"] || !params["1"] {
			t.Fatalf("$20.99 is struck, or not bold: %q", r.Text)
		}
	}
}

// assertAttribute checks that text shows what with the SGR attribute
// param.
func assertAttribute(t *testing.T, text, what, param string) {
	t.Helper()
	if !attributesBefore(text, what)[param] {
		t.Fatalf("%q is not shown with SGR %s in %q", what, param, text)
	}
}

// attributesBefore are the parameters of the SGR sequences that set the
// style in which the first what in text is shown.
func attributesBefore(text, what string) map[string]bool {
	at := strings.Index(text, what)
	if at < 0 {
		return nil
	}
	before := text[:at]
	start := strings.LastIndex(before, "\x1b[m") // the last reset
	params := map[string]bool{}
	for _, m := range regexp.MustCompile(`\x1b\[([0-9;]*)m`).FindAllStringSubmatch(before[max(start, 0):], -1) {
		for _, p := range strings.Split(m[1], ";") {
			params[p] = true
		}
	}
	return params
}

// TestBadHTMLIsShownAsPlainText: HTML too large or too deeply nested to lay
// out in time is shown as plain text with a note; malformed HTML is laid
// out as browsers read it.
func TestBadHTMLIsShownAsPlainText(t *testing.T) {
	dark := theme.New(true, false).Markdown()
	huge, err := corpus.Load("hostile/huge.eml") // nested 3,000 deep
	if err != nil {
		t.Fatal(err)
	}
	malformed, err := corpus.Load("hostile/malformed-html.eml")
	if err != nil {
		t.Fatal(err)
	}
	row := `<tr><td><p>Row <b>text</b> <a href="https://x.test/a">link</a> and more text for the row</p></td><td>2</td></tr>`
	for _, c := range []struct {
		name, body, note, text string
	}{
		{"3,000 deep", huge.Email.HTML, "shown as plain text: ", "Row 1499 行"},
		{"5 MB", "<table>" + strings.Repeat(row, 5<<20/len(row)) + "</table>", "shown as plain text: the HTML is 5.0 MB", "Row text link [1] and more"},
		{"quotes 200 deep", strings.Repeat("<blockquote>", 200) + "deep" + strings.Repeat("</blockquote>", 200), "shown as plain text: its lists and quotes nest 200 deep", "deep"},
		{"malformed", malformed.Email.HTML, "", ""},
	} {
		start := time.Now()
		r := Render(c.body, 80, Options{Style: &dark, Hyperlinks: true})
		if !strings.HasPrefix(r.Problem, c.note) || (c.note == "") != (r.Problem == "") || !strings.Contains(r.Text, c.text) {
			t.Fatalf("%s: problem %q, text %.200q", c.name, r.Problem, r.Text)
		}
		corpus.AssertWidthsAgree(t, c.name, r.Text)
		t.Logf("%s: %v", c.name, time.Since(start))
	}
}
