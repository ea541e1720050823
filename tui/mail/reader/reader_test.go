package reader

import (
	"image"
	"strings"
	"testing"

	"sandview/model/termtext"
	"sandview/tui/tuitest"
)

// TestReaderKeysStayInPane checks that the reader leaves the keys that
// move the focus to its screen, and that scrolling stays within the
// content.
func TestReaderKeysStayInPane(t *testing.T) {
	r := readerOn(tuitest.Emails()[0], 40, 12, false, tuitest.Now())
	for _, name := range []string{"esc", "enter", "tab"} {
		if _, ok := r.HandleKey(tuitest.Key(name)); ok {
			t.Errorf("the reader took %q, which moves the focus", name)
		}
	}
	tuitest.PressPane(t, r, "end")
	bottom := r.scroll.Offset()
	tuitest.PressPane(t, r, "down", "pgdown")
	if r.scroll.Offset() != bottom || bottom == 0 {
		t.Fatalf("scrolled past the end: %d then %d", bottom, r.scroll.Offset())
	}
	tuitest.PressPane(t, r, "home")
	if r.scroll.Offset() != 0 {
		t.Fatal("home did not go back to the top")
	}
}

func TestOpenableLink(t *testing.T) {
	for link, want := range map[string]bool{
		"https://example.com": true, "http://x.test/a": true, "mailto:a@b.test": true,
		"javascript:alert(1)": false, "file:///etc/passwd": false, "-https://x": false, "https://": false, "": false,
	} {
		if got := OpenableLink(link); got != want {
			t.Errorf("OpenableLink(%q) = %v", link, got)
		}
	}
}

func TestParseHeadersAsSent(t *testing.T) {
	raw := "Received: from a.example\r\n\tby b.example; Sun, 1 Jun 2025\r\nReceived: from c.ex by d.example\r\n" +
		"X-Custom-CASE: Value\r\nSubject: =?utf-8?b?R3LDvMOfZQ==?= and =?iso-8859-1?q?K=F6ln?=\r\n" +
		"X-Evil: a\x1b[2Jb\u202ec\r\nnot a field\r\n" + "X-Unknown: =?x-none?q?abc?=\r\n\r\nBody: not a header\r\n"
	got := parseHeaders([]byte(raw))
	want := []header{
		{"Received", "from a.example\tby b.example; Sun, 1 Jun 2025"},
		{"Received", "from c.ex by d.example"},
		{"X-Custom-CASE", "Value"},
		{"Subject", "Grüße and Köln"},
		{"X-Evil", "abc"},
		{"", "not a field"}, // no indent: a malformed field of its own (RFC 5322 2.2.3), as the server reads it
		{"X-Unknown", "abc"},
	}
	// Sanitizing turns the tab of the folded line into a space.
	want[0].value = termtext.SanitizeLine(want[0].value)
	if len(got) != len(want) {
		t.Fatalf("got %d headers: %q", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("header %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// TestTabsKeepTheirLayout checks that switching tabs and back does not lay
// the big body out again: the lines are kept per email and width.
func TestTabsKeepTheirLayout(t *testing.T) {
	e := tuitest.Emails()[0]
	e.Text = strings.Repeat("a line of prose long enough to wrap in the pane, laid out once\n", 20_000)
	r := readerOn(e, 80, 40, false, tuitest.Now())
	r.SetTab(TabRaw)
	r.SetRaw(tuitest.DemoAddr, e.ID, []byte("Subject: big\r\n\r\n"+e.Text), nil)
	_ = r.View()
	raw := r.scroll.Visible()[0]
	r.SetTab(TabBody)
	_ = r.View()
	body := &r.body.wrapped.lines[0]
	r.SetTab(TabRaw)
	_ = r.View()
	if got := r.scroll.Visible()[0]; got != raw {
		t.Fatalf("raw tab shows %q, then %q", raw, got)
	}
	r.SetTab(TabBody)
	_ = r.View()
	if &r.body.wrapped.lines[0] != body {
		t.Fatal("the body was laid out again")
	}
}

func TestRenderedTabStaleResult(t *testing.T) {
	tab := &renderedTab{ctx: nil, cache: map[renderKey]*rendered{}}
	old := renderKey{address: "a@x", id: "1", width: 600}
	cur := renderKey{address: "a@x", id: "2", width: 600}
	tab.cache[old], tab.cache[cur], tab.pending = &rendered{}, &rendered{}, cur
	tab.done(renderedMsg{key: old, rendered: rendered{img: image.NewRGBA(image.Rect(0, 0, 1, 1))}})
	if _, kept := tab.cache[old]; kept {
		t.Fatal("a stale render (another email since) was kept")
	}
	tab.done(renderedMsg{key: cur, rendered: rendered{img: image.NewRGBA(image.Rect(0, 0, 1, 1))}})
	if r := tab.cache[cur]; r == nil || r.img == nil {
		t.Fatal("the render asked for last was dropped")
	}
}
