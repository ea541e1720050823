package mail

import (
	"fmt"
	"strings"
	"testing"

	"sandview/model"
	"sandview/tui/corpus"
	"sandview/tui/mail/reader"
	"sandview/tui/tuitest"
)

// bigMail is an email of about 5 MB: a text body of prose lines (some
// long enough to wrap, some with accents, CJK and emoji) and the raw
// source holding it.
func bigMail() (model.Email, []byte) {
	var body strings.Builder
	for i := 0; body.Len() < 5<<20; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&body, "Line %d of a very large message, long enough that a narrow pane has to wrap it at a space and keep every word of it intact.\n", i)
		case 1:
			fmt.Fprintf(&body, "Grüße %d — 日本語のテキスト 🚀 mixed with plain words\n", i)
		case 2:
			body.WriteString("\n")
		default:
			fmt.Fprintf(&body, "https://example.com/a/very/long/link/that/cannot/break/at/a/space/%d?with=query&and=more\n", i)
		}
	}
	text := body.String()
	raw := "From: big@example.com\r\nTo: " + tuitest.DemoAddr + "\r\nSubject: Big\r\n\r\n" + strings.ReplaceAll(text, "\n", "\r\n")
	return model.Email{ID: "big", From: "big@example.com", To: []string{tuitest.DemoAddr}, Subject: "Big",
		ReceivedAt: tuitest.Now(), HasContent: true, Text: text}, []byte(raw)
}

// openBig is the mail screen at 160x47 with the big email open in the
// reader, showing tab t, after its first render.
func openBig(b testing.TB, t reader.Tab) *harness {
	h := newHarness(b, 160, 47)
	m, raw := bigMail()
	h.svc.SetEmails(tuitest.DemoAddr, []model.Email{m})
	h.svc.SetRaw(m.ID, raw)
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{m}})
	h.Press("enter", fmt.Sprint(int(t)+1))
	if h.s.Focus() != PaneReader {
		b.Fatal("the reader is not focused")
	}
	_ = h.s.View()
	return h
}

// benchmarkScroll is a key press (down, or page down) and the frame after
// it, in tab t of the big email.
func benchmarkScroll(b *testing.B, t reader.Tab, page bool) {
	h := openBig(b, t)
	down, up := tuitest.Key("down"), tuitest.Key("up")
	if page {
		down, up = tuitest.Key("pgdown"), tuitest.Key("pgup")
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := down
		if (i/200)%2 == 1 {
			k = up
		}
		i++
		h.s.HandleKey(k)
		_ = h.s.View()
	}
}

func BenchmarkScrollRaw5MB(b *testing.B)    { benchmarkScroll(b, reader.TabRaw, false) }
func BenchmarkScrollBody5MB(b *testing.B)   { benchmarkScroll(b, reader.TabBody, false) }
func BenchmarkPageDownRaw5MB(b *testing.B)  { benchmarkScroll(b, reader.TabRaw, true) }
func BenchmarkPageDownBody5MB(b *testing.B) { benchmarkScroll(b, reader.TabBody, true) }

// BenchmarkFirstRenderNewsletter is opening the 200 KB HTML newsletter of
// the corpus in the HTML view and drawing the first frame.
func BenchmarkFirstRenderNewsletter(b *testing.B) {
	mail, err := corpus.Load("hostile/newsletter.eml")
	if err != nil {
		b.Fatal(err)
	}
	h := newHarness(b, 160, 47)
	// Two copies, opened in turn: the reader keeps the rendering of the
	// open email only, so each open renders anew.
	one, two := mail.Email, mail.Email
	one.ID, two.ID = "n1", "n2"
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{one, two}})
	h.Press("enter", "h")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		id := one.ID
		if i%2 == 0 {
			id = two.ID
		}
		i++
		h.s.panes.reader.Open(tuitest.DemoAddr, id)
		_ = h.s.View()
	}
}

// BenchmarkFirstRenderRaw5MB is the first frame of the Raw tab of the big
// email once its source has arrived: sanitizing and wrapping 5 MB.
func BenchmarkFirstRenderRaw5MB(b *testing.B) {
	h := openBig(b, reader.TabRaw)
	_, raw := bigMail()
	b.ReportAllocs()
	for b.Loop() {
		h.s.panes.reader.Clear()
		h.s.panes.reader.Open(tuitest.DemoAddr, "big")
		h.s.panes.reader.SetRaw(tuitest.DemoAddr, "big", raw, nil)
		_ = h.s.View()
	}
}
