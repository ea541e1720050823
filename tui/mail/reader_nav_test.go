package mail

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/mail/reader"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// ticks records the timers the screen asks for, so a test fires them
// when it chooses: those of the filler (fillMsg) apart, those of the
// loading indicator dropped.
type ticks struct{ fired, fills []func(time.Time) tea.Msg }

func (r *ticks) tick(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	switch fn(time.Time{}).(type) {
	case spinner.TickMsg: // the loading indicator, while a list streams in
		return nil
	case fillMsg:
		r.fills = append(r.fills, fn)
		return nil
	}
	r.fired = append(r.fired, fn)
	return nil
}

// TestReaderFollowsTheCursor moves the cursor three times quickly in the
// wide and the stacked layouts: the reader shows nothing until the cursor
// rests, then the email it rests on, marked read; an earlier move's tick
// shows nothing.
func TestReaderFollowsTheCursor(t *testing.T) {
	for _, width := range []int{140, 100} {
		h := newHarness(t, width, 37)
		var rec ticks
		h.ctx.Tick = rec.tick
		h.Press("j", "j", "j")
		if h.s.panes.shown().id != "" || len(rec.fired) != 3 {
			t.Fatalf("width %d: the reader followed at once (%q), or %d ticks", width, h.s.panes.shown().id, len(rec.fired))
		}
		h.Send(rec.fired[0](tuitest.Now()))
		if h.s.panes.shown().id != "" {
			t.Fatalf("width %d: a stale tick showed %s", width, h.s.panes.shown().id)
		}
		h.Send(rec.fired[2](tuitest.Now()))
		if !h.s.panes.reader.Showing(tuitest.DemoAddr, "e4") || h.s.Focus() != PaneEmails {
			t.Fatalf("width %d: the reader shows %q, focus %v", width, h.s.panes.shown().id, h.s.Focus())
		}
	}
	h := newHarness(t, 70, 30)
	var rec ticks
	h.ctx.Tick = rec.tick
	h.Press("j")
	if len(rec.fired) != 0 {
		t.Fatal("the narrow layout, which shows one pane, previews")
	}
}

// fireAll fires every timer recorded so far, in order.
func fireAll(h *harness, rec *ticks) {
	fired := rec.fired
	rec.fired = nil
	for _, fn := range fired {
		h.Send(fn(tuitest.Now()))
	}
}

func TestNextAndPreviousFromTheReader(t *testing.T) {
	h := newHarness(t, 140, 37)
	var rec ticks
	h.ctx.Tick = rec.tick
	h.Press("enter", "J")
	if !h.s.panes.reader.Showing(tuitest.DemoAddr, "e2") || h.selected() != "e2" || h.s.Focus() != PaneReader {
		t.Fatalf("J: reader %s, cursor %s, focus %v", h.s.panes.shown().id, h.selected(), h.s.Focus())
	}
	fireAll(h, &rec)
	if !h.svc.Called("markRead demo@sandbox.test e2") || h.svc.Called("markRead demo@sandbox.test e1") {
		t.Fatalf("J then a dwell: the next message not marked read, or the one skipped marked: %v", h.svc.Calls())
	}
	h.Press("K", "K")
	if !h.s.panes.reader.Showing(tuitest.DemoAddr, "e1") || !strings.Contains(h.shown(), "this is the first message") {
		t.Fatalf("K at the top: reader %s\n%s", h.s.panes.shown().id, h.shown())
	}
}

func TestQuitClosesTheReaderFirst(t *testing.T) {
	h := newHarness(t, 70, 30)
	h.Press("enter")
	if h.s.Focus() != PaneReader {
		t.Fatal("enter did not open the reader")
	}
	if _, ok := h.s.HandleKey(tuitest.Key("q")); !ok || h.s.Focus() != PaneEmails {
		t.Fatalf("q in the reader: focus %v", h.s.Focus())
	}
	if _, ok := h.s.HandleKey(tuitest.Key("q")); ok {
		t.Fatal("q on the message list was not left to the program, which quits")
	}
}

func TestHalfPagesInTheReader(t *testing.T) {
	h := newHarness(t, 140, 12)
	h.Press("enter")
	top := h.s.panes.reader.View()
	h.Press("ctrl+d")
	if h.s.panes.reader.View() == top {
		t.Fatal("ctrl+d did not scroll")
	}
	h.Press("ctrl+u")
	if h.s.panes.reader.View() != top {
		t.Fatal("ctrl+u did not scroll back")
	}
}

func TestSearchInsideTheMessage(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("enter", "2", "/")
	if !h.s.CapturesInput() {
		t.Fatal("/ in the reader did not start a search")
	}
	h.Type("sandbox")
	h.Press("enter")
	r := h.s.panes.reader
	// The search line counts the matching lines and says which is shown.
	count := regexp.MustCompile(`(\d+)/(\d+)  n/N next/previous`)
	at := func() (cur, total string) {
		m := count.FindStringSubmatch(h.shown())
		if m == nil {
			t.Fatalf("no match count on the search line:\n%s", h.shown())
		}
		return m[1], m[2]
	}
	if cur, total := at(); cur != "1" || total == "0" || total == "1" {
		t.Fatalf("match %s of %s\n%s", cur, total, h.shown())
	}
	h.Press("n")
	if cur, _ := at(); cur != "2" {
		t.Fatal("n did not move to the next match")
	}
	h.Press("N")
	if cur, _ := at(); cur != "1" {
		t.Fatal("N did not move back")
	}
	if !strings.Contains(r.View(), h.ctx.Styles().Match.Render("sandbox")) {
		t.Fatal("the matches are not marked")
	}
	h.Press("esc")
	if strings.Contains(h.shown(), "next/previous") || h.s.Focus() != PaneReader {
		t.Fatal("esc did not end the search first")
	}
	h.Press("n")
	if !strings.Contains(h.shown(), "press / to search this message first") {
		t.Fatal("n without a search says nothing")
	}
}

// TestPipeTheMessage pipes the raw message of e1 to a real shell: the
// output shows in a dialog, sanitized; the status names the exit.
func TestPipeTheMessage(t *testing.T) {
	h := newHarnessWith(t, 140, 37, ui.Settings{Shell: "/bin/sh"})
	h.Press("enter", "|")
	h.Type(`grep -c Received; printf '\033[2Jbye'; exit 3`)
	h.Press("enter")
	d, ok := h.ctx.Dialog().(*ui.TextDialog)
	if !ok {
		t.Fatalf("no output dialog:\n%s", h.shown())
	}
	out := tuitest.Plain(d.View(100, 30))
	tuitest.AssertNoControls(t, out)
	if !strings.Contains(out, "2") || !strings.Contains(out, "bye") || !strings.Contains(out, "exit status 3") {
		t.Fatalf("the output dialog shows:\n%s", out)
	}
	h.Press("q")
	h.Press("|")
	if p, ok := h.ctx.Dialog().(*ui.Prompt); !ok || !strings.HasPrefix(p.Value(), "grep -c") {
		t.Fatal("the prompt does not offer the last command again")
	}
}

// TestRunnerCapsAndStops checks the runner the pipe uses: it keeps one
// byte more than the limit of a flood, and ends a command whose time is
// up.
func TestRunnerCapsAndStops(t *testing.T) {
	out, err := execRunner(context.Background(), nil, "/bin/sh", "-c", "head -c 3000000 /dev/zero")
	if err != nil || len(out) != reader.PipeOutputLimit+1 {
		t.Fatalf("kept %d bytes (%v), want %d", len(out), err, reader.PipeOutputLimit+1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := execRunner(ctx, nil, "/bin/sh", "-c", "sleep 30"); err == nil {
		t.Fatal("a command past its time was not stopped")
	}
}

func TestCopyUnderTmux(t *testing.T) {
	var stdin, ran string
	h := newHarnessWith(t, 140, 37, ui.Settings{
		InTmux: true,
		Run: func(_ context.Context, in []byte, name string, args ...string) ([]byte, error) {
			stdin, ran = string(in), name+" "+strings.Join(args, " ")
			return nil, nil
		},
	})
	msgs := h.Press("y")
	if !tuitest.Contains(msgs, tuitest.DemoAddr) || ran != "tmux load-buffer -w -" || stdin != tuitest.DemoAddr {
		t.Fatalf("copy under tmux ran %q with %q", ran, stdin)
	}
	if !strings.Contains(h.shown(), "to the tmux buffer and the terminal's clipboard") {
		t.Fatalf("the status does not say where it went:\n%s", h.shown())
	}
}

func TestInboxGoneIsFlagged(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.svc.Forget(tuitest.DemoAddr)
	h.Press("r")
	e := h.current()
	if e.gone == "" || len(e.emails) != 4 {
		t.Fatalf("a 404 on the list: gone %q, %d emails kept", e.gone, len(e.emails))
	}
	if view := h.shown(); !strings.Contains(view, "gone from the server") || strings.Contains(view, "59m12s left") {
		t.Fatalf("the inbox row still counts down:\n%s", view)
	}
	for _, a := range h.s.LiveInboxes() {
		if a == tuitest.DemoAddr {
			t.Fatal("a gone inbox is still live")
		}
	}
	h.Send(feed.InboxGoneMsg{Address: tuitest.PlainAddr, Err: context.Canceled})
	if p, _ := h.s.state.find(tuitest.PlainAddr); p.gone == "" {
		t.Fatal("the feed's gone inbox is not flagged")
	}
}

func TestInboxesSavedByAnotherProgramAppear(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Run(h.s.WatchKeystore())
	if !h.svc.Called("rescan false") {
		t.Fatal("the keystore was not looked at")
	}
	h.svc.SaveToKeystore(tuitest.Inboxes()[0])
	h.svc.SaveToKeystore(model.Inbox{EmailAddress: "qa-run-17@sandbox.test", ExpiresAt: tuitest.Now().Add(time.Hour)})
	h.Run(h.s.WatchKeystore())
	e, _ := h.s.state.find("qa-run-17@sandbox.test")
	if e == nil || !e.loading || !strings.Contains(h.shown(), "1 inbox from the keystore") {
		t.Fatalf("the saved inbox is missing\n%s", h.shown())
	}
	h.Send(feed.InboxReadyMsg{Address: "qa-run-17@sandbox.test"})
	h.svc.RemoveFromKeystore(tuitest.PlainAddr)
	h.Press("r")
	if !h.svc.Called("rescan true") || !h.svc.Called("emails plain@sandbox.test") {
		t.Fatalf("r did not rescan and check the inbox whose file went: %v", h.svc.Calls())
	}
}

func TestCreateCompletesABareName(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("n", "tab")
	h.Type("qa-run-17")
	h.Press("enter")
	if !h.svc.Called("create 1h0m0s qa-run-17@sandbox.test") {
		t.Fatalf("create call: %v", h.svc.Calls())
	}
}

func TestHintAndBannerNameTheSelectedInbox(t *testing.T) {
	h := newHarnessWith(t, 140, 37, ui.Settings{SMTPAddr: "127.0.0.1:1025"})
	h.Press("shift+tab", "j")
	want := "send mail to plain@sandbox.test via SMTP 127.0.0.1:1025"
	if h.s.Banner() != want || !strings.Contains(tuitest.Plain(strings.Join(h.s.panes.emails.rows(200, h.s.panes.emails.entry, false), "\n")), want) {
		t.Fatalf("banner %q; the empty list says %q", h.s.Banner(), h.s.panes.emails.rows(200, h.s.panes.emails.entry, false))
	}
}

// TestHintOfTheCatchAll: the inbox that takes mail to any address says
// so; the others name their own address.
func TestHintOfTheCatchAll(t *testing.T) {
	h := newHarnessWith(t, 140, 37, ui.Settings{SMTPAddr: "127.0.0.1:1025", CatchAll: "plain@sandbox.test"})
	h.Press("shift+tab", "j")
	if want := "catch-all: mail to any address via SMTP 127.0.0.1:1025 shows up here"; h.s.Banner() != want {
		t.Fatalf("banner of the catch-all %q, want %q", h.s.Banner(), want)
	}
	h.Press("k")
	if got := h.s.Banner(); !strings.HasPrefix(got, "send mail to ") || strings.Contains(got, "catch-all") {
		t.Fatalf("banner of another inbox: %q", got)
	}
}

// TestReaderShowsWhatTheCursorIsOnWithoutAKey checks that the reader
// follows the cursor when the list loads (at start), not only after a key,
// and is not scheduled again for what it shows.
func TestReaderShowsWhatTheCursorIsOnWithoutAKey(t *testing.T) {
	var rec ticks
	ctx := tuitest.Context(true)
	ctx.Tick = rec.tick
	h := newHarnessOn(t, ctx, 140, 37, ui.Settings{})
	if len(rec.fired) != 1 {
		t.Fatalf("%d ticks after the lists loaded", len(rec.fired))
	}
	h.Send(rec.fired[0](tuitest.Now()))
	if !h.s.panes.reader.Showing(tuitest.DemoAddr, "e1") {
		t.Fatalf("the reader shows %q, not the email under the cursor", h.s.panes.shown().id)
	}
	h.Send(feedNewEmail(tuitest.PlainAddr, model.Email{ID: "p2", Subject: "again", ReceivedAt: tuitest.Now()}))
	if len(rec.fired) != 1 {
		t.Fatal("a shown email was scheduled again")
	}
}
