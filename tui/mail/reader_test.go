package mail

import (
	"context"
	"fmt"
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
	if h.s.panes.lay.Of(h.s.panes.auth).H != authCollapsedHeight {
		t.Fatalf("auth pane is %d lines", h.s.panes.lay.Of(h.s.panes.auth).H)
	}
	view := h.shown()
	if !strings.Contains(view, "✗ FAIL  SPF: softfail; DKIM: not signed; DMARC: fail") || strings.Contains(view, "Reverse DNS") {
		t.Fatalf("the collapsed pane does not show the verdict alone:\n%s", view)
	}
	h.Press("a")
	if h.s.panes.lay.Of(h.s.panes.auth).H <= authCollapsedHeight || !strings.Contains(h.shown(), "✗ softfail") {
		t.Fatalf("a did not expand the report:\n%s", h.shown())
	}
	h.Press("a")
	if h.s.panes.lay.Of(h.s.panes.auth).H != authCollapsedHeight {
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

// TestReaderTabBarFitsEveryScreen: on a screen of each size the bar
// fits, has every tab's number in order and the shown tab's label, and
// has full labels when they fit.
func TestReaderTabBarFitsEveryScreen(t *testing.T) {
	for _, size := range [][2]int{{60, 20}, {80, 24}, {120, 40}, {200, 50}} {
		h := newHarness(t, size[0], size[1])
		h.Press("enter", "3")
		inner := h.s.panes.lay.Of(h.s.panes.reader).W - 2
		var bar string
		for _, l := range plainLines(h.s.View()) {
			if i := strings.Index(l, " 1 "); i >= 0 && strings.Contains(l, " 6 ") {
				bar = l[i:]
			}
		}
		if end := strings.LastIndex(bar, "│"); end >= 0 {
			bar = bar[:end]
		}
		full := " 1 Body  2 Headers  3 Links(4)  4 Attachments(1)  5 Raw  6 Auth  7 Checks  8 Rendered"
		switch {
		case termtext.Width(strings.TrimRight(bar, " ")) > inner:
			t.Errorf("%v: the bar is wider than the reader (%d): %q", size, inner, bar)
		case !strings.Contains(bar, " 3 Link"):
			t.Errorf("%v: the shown tab lost its label: %q", size, bar)
		case len(full) <= inner && !strings.HasPrefix(bar, full):
			t.Errorf("%v: full labels fit in %d but the bar is %q", size, inner, bar)
		}
		for n := 1; n <= 6; n++ {
			if i := strings.Index(bar, fmt.Sprintf(" %d ", n)); i < 0 {
				t.Errorf("%v: tab %d is missing: %q", size, n, bar)
			}
		}
	}
}

// TestOpenLinkWithoutOpenerSaysTheWayOut: when no program can open a
// link, or it fails, the status says so and the way out first (copy the
// link with y, or set $BROWSER), the detail last, so that a status line
// cut at 80 columns keeps the way out.
func TestOpenLinkWithoutOpenerSaysTheWayOut(t *testing.T) {
	for browser, want := range map[string]string{
		filepath.Join(t.TempDir(), "no-browser"): "no-browser not found: y copies the link, or set $BROWSER",
		"false":                                  "false failed: y copies the link, or set $BROWSER (exit status 1)",
	} {
		ctx := tuitest.Context(true)
		opener := desktop.Opener{Browser: browser}
		s := New(ctx, context.Background(), tuitest.NewFixtureService(), &ui.Settings{Open: opener.Open})
		s.SetSize(140, 37)
		h := &harness{Driver: tuitest.ScreenDriver(t, ctx, s), ctx: ctx, s: s}
		h.Send(feed.InboxReadyMsg{Address: tuitest.DemoAddr})
		h.Press("enter", "3", "o")
		if status := ctx.Status().Text; status != want {
			t.Errorf("status %q, want %q", status, want)
		}
	}
}
