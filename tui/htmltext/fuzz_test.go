package htmltext

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"sandview/theme"
	"sandview/tui/corpus"
)

func FuzzRender(f *testing.F) {
	for _, name := range []string{"hostile/malformed-html.eml", "hostile/emoji.eml", "hostile/preheader.eml", "enmime/mail/html-mime-inline.raw"} {
		m, err := corpus.Load(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(m.Email.HTML)
	}
	f.Add(`<h1><a href="https://x.test">क्षा 👍🏽</a></h1><table><tr><th>a</th><th>b</th></tr><tr><td><a href="https://y.test">y</a></td><td>&#x1b;</td></tr></table>`)
	dark := theme.New(true, false).Markdown()
	f.Fuzz(func(t *testing.T, body string) {
		plain := Render(body, 40, Options{})
		if strings.ContainsRune(plain.Text, 0x1b) {
			t.Fatalf("escape in %q", plain.Text)
		}
		assertLaidOut(t, "plain", plain, 40)
		styled := Render(body, 40, Options{Style: &dark})
		assertLaidOut(t, "styled", styled, 40)
		linked := Render(body, 40, Options{Style: &dark, Hyperlinks: true})
		assertLaidOut(t, "hyperlinked", linked, 40)
		assertOnlyOwnSequences(t, "hyperlinked", linked.Text)
		if got, want := ansi.Strip(linked.Text), ansi.Strip(styled.Text); got != want {
			t.Fatalf("stripped hyperlinked text differs:\n%q\n%q", got, want)
		}
		if plain.Problem == "" {
			assertLinksListed(t, "plain", plain)
		}
	})
}

// BenchmarkRenderNewsletter lays out a 200 KB newsletter (nested layout
// tables, a hidden preheader, images, some 800 links, a receipt table)
// for the first time, in the dark theme with hyperlinks, as the reader
// does when a mail is opened. The budget is 50 ms.
func BenchmarkRenderNewsletter(b *testing.B) {
	m, err := corpus.Load("hostile/newsletter.eml")
	if err != nil {
		b.Fatal(err)
	}
	style := theme.New(true, false).Markdown()
	b.SetBytes(int64(len(m.Email.HTML)))
	for b.Loop() {
		Render(m.Email.HTML, 80, Options{Style: &style, Hyperlinks: true})
	}
}
