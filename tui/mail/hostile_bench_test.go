package mail

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"sandview/model"
	"sandview/tui/mail/reader"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// hostileLinksMail is a mail of about 12 MB whose HTML part is 330,000
// links and whose server-side list of links holds them all (as a server
// that does not cap them would send), with its raw source.
func hostileLinksMail() (model.Email, []byte) {
	const n = 330_000
	var html strings.Builder
	links := make([]string, n)
	for i := range n {
		links[i] = fmt.Sprintf("https://e.example/%06d", i)
		fmt.Fprintf(&html, `<a href="%s">%d</a>`, links[i], i)
	}
	raw := "From: flood@example.com\r\nTo: " + tuitest.DemoAddr + "\r\nSubject: Flood\r\nContent-Type: text/html\r\n\r\n" + html.String()
	return model.Email{ID: "flood", From: "flood@example.com", To: []string{tuitest.DemoAddr}, Subject: "Flood",
		ReceivedAt: tuitest.Now(), HasContent: true, HTML: html.String(), Links: links}, []byte(raw)
}

// BenchmarkOpenHostileLinksMail is opening the hostile mail in the reader
// and drawing its Body, Links and Raw tabs once each.
func BenchmarkOpenHostileLinksMail(b *testing.B) {
	m, raw := hostileLinksMail()
	b.ReportAllocs()
	for b.Loop() {
		h := newHarness(b, 160, 47)
		h.svc.SetEmails(tuitest.DemoAddr, []model.Email{m})
		h.svc.SetRaw(m.ID, raw)
		h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{m}})
		h.Press("enter")
		_ = h.s.View()
		h.Press("3")
		_ = h.s.View()
		h.Press("5")
		_ = h.s.View()
	}
}

// TestHostileMailIsCutNotGrown opens the hostile mail in every heavy tab:
// the reader shows each part cut with its marker and at most reader.MaxLinks
// links, and the whole opening allocates a bounded amount (without the
// caps it ran for minutes and allocated gigabytes).
func TestHostileMailIsCutNotGrown(t *testing.T) {
	m, raw := hostileLinksMail()
	h := newHarness(t, 120, 40)
	h.svc.SetEmails(tuitest.DemoAddr, []model.Email{m})
	h.svc.SetRaw(m.ID, raw)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{m}})
	h.Press("enter")
	_ = h.s.View()
	h.Press("/")
	h.Type("[sandview: the HTML part")
	h.Press("enter")
	if view := ansi.Strip(h.s.panes.reader.View()); !strings.Contains(view, "1/1  n/N next/previous") {
		t.Fatalf("the body does not say where it is cut:\n%s", view)
	}
	h.Press("esc")
	h.Press("3")
	if shown := h.shown(); !strings.Contains(shown, fmt.Sprintf("(%d)", reader.MaxLinks)) {
		t.Fatalf("the links tab does not hold %d links:\n%s", reader.MaxLinks, shown)
	}
	h.Press("5", "G")
	if shown := h.shown(); !strings.Contains(shown, "the raw source is cut") {
		t.Fatalf("the end of the raw source does not say it is cut:\n%s", shown)
	}
	runtime.ReadMemStats(&after)
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 600 {
		t.Fatalf("opening the hostile mail allocated %d MB", mb)
	}
}

// BenchmarkOpenHyperlinkedFlood is opening a text part of 1 MB of links
// (the hostile mail's, cut) on a terminal that shows hyperlinks: each
// link found in the text by one lookup per link length (4.3 s when each
// place was compared with each of the 10,000 links; 19 ms after).
func BenchmarkOpenHyperlinkedFlood(b *testing.B) {
	m, _ := hostileLinksMail()
	m.Text, m.HTML = strings.Join(m.Links, "\n"), ""
	b.ReportAllocs()
	for b.Loop() {
		h := newHarnessWith(b, 160, 47, ui.Settings{Hyperlinks: true})
		h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{m}})
		h.Press("enter")
		_ = h.s.View()
	}
}
