package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/tui/feed"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// TestQuitOnlyFromTheTop checks that q closes the help, then the reader,
// and quits only from the message list; ctrl+c quits from the reader.
func TestQuitOnlyFromTheTop(t *testing.T) {
	h := newHarness(t, 120, 40, true)
	h.Press("enter", "?")
	if msgs := h.Press("q"); tuitest.Quits(msgs) || h.app.ctx.Dialog() != nil {
		t.Fatal("q in the help quit, or left it open")
	}
	if msgs := h.Press("q"); tuitest.Quits(msgs) {
		t.Fatal("q in the reader quit")
	}
	if msgs := h.Press("q"); !tuitest.Quits(msgs) {
		t.Fatal("q on the message list did not quit")
	}
	h.Press("enter")
	if msgs := h.Press("ctrl+c"); !tuitest.Quits(msgs) {
		t.Fatal("ctrl+c in the reader did not quit")
	}
}

// TestTypingAQueryNeverQuits types a query with a q from every pane of
// the mail screen and on the webhooks screen: the mail panes take it as a
// search, the webhooks screen offers no search and ignores /.
func TestTypingAQueryNeverQuits(t *testing.T) {
	for _, keys := range [][]string{{"shift+tab"}, {}, {"enter"}} {
		h := newHarness(t, 120, 40, true)
		h.Press(keys...)
		h.Press("/")
		for _, r := range "qa-run" {
			if msgs := h.Press(string(r)); tuitest.Quits(msgs) {
				t.Fatalf("after %v, typing the query quit", keys)
			}
		}
	}
	h := newWebhookHarness(t, 120, 40, true)
	if msgs := h.Press("/"); tuitest.Quits(msgs) || h.app.ctx.Dialog() != nil {
		t.Fatal("/ on the webhooks screen did something")
	}
}

func TestMessageLog(t *testing.T) {
	h := newHarness(t, 120, 40, true)
	h.Send(feed.SyncErrorMsg{Err: errors.New("list x: boom")})
	h.Send(ui.StatusMsg{Text: "saved report.pdf", Level: ui.LevelSuccess})
	h.expireStatus()
	if strings.Contains(h.plain(), "boom") {
		t.Fatal("the status did not expire")
	}
	h.Press("!")
	view := h.plain()
	if !strings.Contains(view, "12:00:00 ✓ saved report.pdf") || !strings.Contains(view, "12:00:00 ! list x: boom") {
		t.Fatalf("the log lacks the messages:\n%s", view)
	}
	if strings.Index(view, "saved report.pdf") > strings.Index(view, "list x: boom") {
		t.Fatal("the log is not newest first")
	}
}

// TestWrongKeyScreen starts the program against a server that refuses the
// key: the first frame says connecting, then a screen says what to do;
// r checks again and the screens come back once the key is accepted.
func TestWrongKeyScreen(t *testing.T) {
	svc := tuitest.NewFixtureService()
	svc.RefuseKey(true)
	h := newHarnessOver(t, svc, 120, 40, true)
	if !strings.Contains(h.plain(), "connecting…") {
		t.Fatalf("the first frame does not say it connects:\n%s", h.plain())
	}
	h.Run(h.app.checkKey())
	view := h.plain()
	for _, want := range []string{"refused the API key", "sandview config --url URL --api-key", "r checks the key again"} {
		if !strings.Contains(view, want) {
			t.Fatalf("the key screen lacks %q:\n%s", want, view)
		}
	}
	tuitest.RequireSize(t, h.view(), 120, 40)
	if msgs := h.Press("d"); len(msgs) != 0 || h.app.ctx.Dialog() != nil {
		t.Fatal("a screen key acted behind the key screen")
	}
	svc.RefuseKey(false)
	h.Press("r")
	if h.app.keyRefused != "" || !strings.Contains(h.plain(), "Messages") {
		t.Fatalf("r did not bring the screens back:\n%s", h.plain())
	}
	h.Send(feed.StateMsg{State: client.ConnState{Kind: client.StatePolling, Err: fmt.Errorf("poll: %w", &client.UnauthorizedError{})}})
	if h.app.keyRefused == "" {
		t.Fatal("a 401 from the feed did not show the key screen")
	}
	if msgs := h.Press("q"); !tuitest.Quits(msgs) {
		t.Fatal("q does not quit from the key screen")
	}
}

// TestReconnectShowsWhyAndLogsIt checks that a reconnect says why in the
// status bar and keeps the cause in the log; a watch of nothing says so.
func TestReconnectShowsWhyAndLogsIt(t *testing.T) {
	h := newHarness(t, 160, 40, true)
	cause := errors.New("event stream failed: the server answered 503")
	h.Send(feed.StateMsg{State: client.ConnState{Kind: client.StateReconnecting, Attempt: 2, Delay: 2 * time.Second, Err: cause}})
	if !strings.Contains(h.plain(), "reconnecting in 2s, attempt 2: event stream failed") {
		t.Fatalf("the cause is not shown:\n%s", h.plain())
	}
	logged := false
	for _, e := range h.app.ctx.LogEntries() {
		logged = logged || strings.Contains(e.Text, "503")
	}
	if !logged {
		t.Fatal("the cause is not in the log")
	}
	h.Send(feed.StateMsg{State: client.ConnState{Kind: client.StateIdle}})
	if !strings.Contains(h.plain(), "no inbox to watch") {
		t.Fatal("idle is not said")
	}
}

// TestWebhookStatsFollowDeliveries checks that a delivery, and new mail,
// list the webhooks' stats again once things calm down.
func TestWebhookStatsFollowDeliveries(t *testing.T) {
	h := newWebhookHarness(t, 120, 40, true)
	var due []func(time.Time) tea.Msg
	h.app.ctx.Tick = func(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		due = append(due, fn)
		return nil
	}
	withDeliveries(h)
	h.Send(feed.NewEmailMsg{Address: tuitest.DemoAddr})
	if len(due) < 2 {
		t.Fatalf("%d refreshes asked for", len(due))
	}
	before := strings.Count(strings.Join(h.svc.Calls(), "\n"), "listWebhooks")
	for _, fn := range due {
		h.Send(fn(tuitest.Now()))
	}
	if after := strings.Count(strings.Join(h.svc.Calls(), "\n"), "listWebhooks"); after <= before {
		t.Fatalf("the stats were not listed again: %v", h.svc.Calls())
	}
}

// TestBannerFollowsTheSelectedInbox starts with no inbox, the SMTP
// address known: no banner; a new inbox brings the banner naming it, and
// the view stays the terminal's size.
func TestBannerFollowsTheSelectedInbox(t *testing.T) {
	svc := tuitest.NewService()
	dark := true
	app := newApp(context.Background(), Config{svc: svc, tick: tuitest.NoTick, Settings: &Settings{ServerLabel: "local", SMTPAddr: "127.0.0.1:1025", DarkTheme: &dark,
		Now: func() time.Time { return tuitest.Now() }}})
	h := &harness{app: &app, svc: svc}
	h.Driver = tuitest.Driver{T: t, Update: func(msg tea.Msg) tea.Cmd {
		next, cmd := h.app.Update(msg)
		*h.app = next.(App)
		return cmd
	}}
	h.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
	if strings.Contains(h.plain(), "send mail to") {
		t.Fatal("a banner without an inbox")
	}
	h.Press("n", "tab")
	h.Type("qa-run-17")
	h.Press("enter")
	if !strings.Contains(h.plain(), "send mail to qa-run-17@sandbox.test via SMTP 127.0.0.1:1025") {
		t.Fatalf("the banner does not name the new inbox:\n%s", h.plain())
	}
	tuitest.RequireSize(t, h.view(), 100, 30)
}
