package mail

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/corpus"
	"sandview/tui/desktop"
	"sandview/tui/feed"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

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

func TestHeadersTabShowsHeadersAsSent(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("enter", "2")
	if !h.svc.Called("raw demo@sandbox.test e1") {
		t.Fatalf("the headers tab did not fetch the raw source: %v", h.svc.Calls())
	}
	view := h.shown()
	for _, want := range []string{"Cc        Jürgen Müller <juergen@example.de>", "Reply-To  help@example.com",
		"Subject   Welcome to the sandbox", "All 9 header fields", "X-Mailer: test"} {
		if !strings.Contains(view, want) {
			t.Fatalf("headers tab lacks %q:\n%s", want, view)
		}
	}
	if strings.Count(view, "Received: from") != 2 {
		t.Fatalf("the repeated Received header is not shown twice:\n%s", view)
	}
	if strings.Index(view, "Received: from mx") > strings.Index(view, "Received: from c.example") {
		t.Fatal("headers are not in the order sent")
	}
	h.Press("5", "2")
	if n := strings.Count(strings.Join(h.svc.Calls(), "\n"), "raw demo@sandbox.test e1"); n != 1 {
		t.Fatalf("the raw source was fetched %d times", n)
	}
}

func TestViewHTMLInBrowser(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	home := t.TempDir()
	h := newHarnessWith(t, 140, 37, ui.Settings{TempDir: desktop.OpenedDir(home)})
	e := tuitest.Emails()[0]
	e.HTML = `<html><head><meta http-equiv="refresh" content="0;url=https://evil.test/"><base href="https://evil.test/">` +
		`<script>alert(1)</script></head><body><p>Hi <img src="https://tracker.test/p.gif"></p></body></html>`
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{e}})
	h.Press("enter", "v")
	var path string
	for _, c := range h.svc.Calls() {
		if p, ok := strings.CutPrefix(c, "open "); ok {
			path = p
		}
	}
	if path == "" {
		t.Fatalf("v opened nothing: %v", h.svc.Calls())
	}
	if filepath.Dir(path) != desktop.OpenedDir(home) {
		t.Fatalf("v wrote %s: want it under $SANDVIEW_HOME", path)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head := string(page)[:strings.Index(string(page), "<body>")]
	if !strings.Contains(head, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; img-src data: cid:;`) {
		t.Fatalf("no policy blocking remote content:\n%s", page)
	}
	for _, gone := range []string{"refresh", "<base", "<script", "alert"} {
		if strings.Contains(string(page), gone) {
			t.Fatalf("the page keeps %q:\n%s", gone, page)
		}
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700 | os.ModeDir} {
		if info, err := os.Stat(p); err != nil || info.Mode() != want {
			t.Fatalf("%s: mode %v, want %v (%v)", p, info.Mode(), want, err)
		}
	}
	if err := h.s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the decrypted page is still there after the program ended: %v", err)
	}
	if left, _ := os.ReadDir(os.Getenv("TMPDIR")); len(left) != 0 {
		t.Fatalf("%d files in $TMPDIR", len(left))
	}
}

// TestAuthPaneIsOneLineUntilExpanded checks that the auth pane beside the
// reader gives the body the room, and that a opens the report in it.
func TestAuthPaneIsOneLineUntilExpanded(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("down", "enter")
	if h.s.lay.auth.H != authCollapsedHeight {
		t.Fatalf("auth pane is %d lines", h.s.lay.auth.H)
	}
	view := h.shown()
	if !strings.Contains(view, "✗ FAIL  SPF: softfail; DKIM: not signed; DMARC: fail") || strings.Contains(view, "Reverse DNS") {
		t.Fatalf("the collapsed pane does not show the verdict alone:\n%s", view)
	}
	h.Press("a")
	if h.s.lay.auth.H <= authCollapsedHeight || !strings.Contains(h.shown(), "✗ softfail") {
		t.Fatalf("a did not expand the report:\n%s", h.shown())
	}
	h.Press("a")
	if h.s.lay.auth.H != authCollapsedHeight {
		t.Fatal("a did not collapse the report")
	}
}

func TestAuthReportWordsAndWrapping(t *testing.T) {
	h := newHarness(t, 100, 37)
	e := tuitest.Emails()[0]
	sig := strings.Repeat("abcdefghij", 12)
	e.AuthResults = model.AuthResults{
		SPF:  &model.SPFResult{Result: "none", Domain: "example.com"},
		DKIM: []model.DKIMResult{{Result: "neutral", Domain: "example.com", Signature: sig}},
	}
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{e}})
	h.Press("enter", "6")
	view := h.shown()
	for _, want := range []string{"~ NOT VERIFIED", "~ none (no record)", "~ neutral (inconclusive)"} {
		if !strings.Contains(view, want) {
			t.Fatalf("auth tab lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "FAIL") {
		t.Fatalf("none and neutral show as a failure:\n%s", view)
	}
	if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(view, "│", " ")), ""), sig) {
		t.Fatalf("the DKIM signature is cut:\n%s", view)
	}
}

// TestTabsKeepTheirLayout checks that switching tabs and back does not lay
// the big body out again: the lines are kept per email and width.
func TestTabsKeepTheirLayout(t *testing.T) {
	h := openBig(t, tabRaw)
	raw := h.s.reader.scroll.Visible()[0]
	h.Press("1")
	_ = h.s.View()
	body := &h.s.reader.body.wrapped.lines[0]
	h.Press("5")
	_ = h.s.View()
	if got := h.s.reader.scroll.Visible()[0]; got != raw {
		t.Fatalf("raw tab shows %q, then %q", raw, got)
	}
	h.Press("1")
	_ = h.s.View()
	if &h.s.reader.body.wrapped.lines[0] != body {
		t.Fatal("the body was laid out again")
	}
}

func TestLinksTabNumbersLikeTheBody(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("enter", "h")
	if !strings.Contains(h.shown(), "link [4]") { // after the 3 links the server lists
		t.Fatalf("the HTML view does not number its link after the server's:\n%s", h.shown())
	}
	h.Press("3")
	if !strings.Contains(h.shown(), "  1 https://example.com/welcome") || !strings.Contains(h.shown(), "  4 https://example.com/x") || !strings.Contains(h.shown(), "(4)") {
		t.Fatalf("links tab does not number as the body:\n%s", h.shown())
	}
}

// TestHyperlinksOpenAndCloseOnEachLine renders the corpus newsletter with
// OSC 8 hyperlinks: every line of the screen is as wide as the others by
// every width function, and closes each hyperlink it opens.
func TestHyperlinksOpenAndCloseOnEachLine(t *testing.T) {
	mail, err := corpus.Load("hostile/newsletter.eml")
	if err != nil {
		t.Fatal(err)
	}
	svc := tuitest.NewFixtureService()
	svc.SetEmails(tuitest.DemoAddr, []model.Email{mail.Email})
	ctx := tuitest.Context(true)
	s := New(ctx, context.Background(), svc, &ui.Settings{Hyperlinks: true, Open: func(context.Context, string) error { return nil }})
	s.SetSize(100, 40)
	d := tuitest.ScreenDriver(t, ctx, s)
	d.Send(feed.InboxReadyMsg{Address: tuitest.DemoAddr})
	d.Press("enter", "h")
	links := 0
	for range 40 {
		for i, line := range strings.Split(s.View(), "\n") {
			if d := corpus.WidthDisagreement(line); d != "" {
				t.Fatalf("line %d: %s", i, d)
			}
			if w := termtext.Width(line); w != 100 {
				t.Fatalf("line %d is %d cells", i, w)
			}
			opened := strings.Count(line, "\x1b]8;;http")
			if closed := strings.Count(line, "\x1b]8;;\a") + strings.Count(line, "\x1b]8;;\x1b\\"); opened != closed {
				t.Fatalf("line %d opens %d hyperlinks and closes %d: %q", i, opened, closed, line)
			}
			links += opened
		}
		d.Press("pgdown")
	}
	if links == 0 {
		t.Fatal("no hyperlinks shown")
	}
}

func TestHeadersTabFallsBackToTheServersSummary(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("down", "enter", "2") // e2 has no raw source on the fake service
	view := h.shown()
	for _, want := range []string{"Could not fetch the raw source", "The server's summary", "X-Evil"} {
		if !strings.Contains(view, want) {
			t.Fatalf("headers tab lacks %q:\n%s", want, view)
		}
	}
	tuitest.AssertNoControls(t, view)
}

// TestSaveDialogMakesAndRemembersTheDirectory: saving into a directory
// that does not exist creates it (0700), and the next save dialog offers
// the directory used last.
func TestSaveDialogMakesAndRemembersTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "saved")
	h := newHarness(t, 140, 37)
	h.Press("enter", "4", "s", "ctrl+u")
	h.Type(dir)
	h.Press("enter")
	if h.ctx.Dialog() != nil {
		t.Fatalf("the save prompt is still open:\n%s", h.shown())
	}
	if data, err := os.ReadFile(filepath.Join(dir, "report.pdf")); err != nil || string(data) != "%PDF-1.4" {
		t.Fatalf("not saved: %q %v", data, err)
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v, mode %v; want 0700", dir, err, info.Mode().Perm())
	}
	for _, keys := range [][]string{{"s"}, {"5", "s"}, {"S"}} {
		h.Press(keys...)
		p, ok := h.ctx.Dialog().(*ui.Prompt)
		if !ok || p.Value() != dir {
			t.Fatalf("after %v the dialog offers %v, want the last directory %s", keys, h.ctx.Dialog(), dir)
		}
		h.Press("esc")
	}
}

// TestHeadersTabShowsTheEnvelope: beside the headers as sent, the Headers
// tab says what the SMTP client said: MAIL FROM and the RCPT TOs of this
// copy (the null sender as <>); without an envelope it says nothing of it.
func TestHeadersTabShowsTheEnvelope(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("enter", "2")
	if view := h.shown(); strings.Contains(view, "Delivered to") || strings.Contains(view, "Envelope from") {
		t.Fatalf("an email without an envelope shows one:\n%s", view)
	}
	h = newHarness(t, 140, 37)
	h.svc.AddEmail(tuitest.DemoAddr, model.Email{ID: "env1", From: "a@x.test", To: []string{"v@x.test"}, Subject: "with envelope",
		ReceivedAt: tuitest.Now().Add(time.Minute), HasContent: true,
		Envelope: &model.Envelope{To: []string{"v@x.test", "odd local@x.test"}}})
	h.svc.SetRaw("env1", []byte("From: a@x.test\r\nTo: v@x.test\r\nSubject: with envelope\r\n\r\nbody\r\n"))
	h.Send(feed.NewEmailMsg{Address: tuitest.DemoAddr, Email: model.Email{ID: "env1", From: "a@x.test", To: []string{"v@x.test"}, Subject: "with envelope",
		ReceivedAt: tuitest.Now().Add(time.Minute), HasContent: true,
		Envelope: &model.Envelope{To: []string{"v@x.test", "odd local@x.test"}}}})
	h.Press("g", "enter", "2")
	view := h.shown()
	for _, want := range []string{"Envelope from <>", `Delivered to  v@x.test, "odd local"@x.test`} {
		if !strings.Contains(view, want) {
			t.Fatalf("headers tab lacks %q:\n%s", want, view)
		}
	}
}
