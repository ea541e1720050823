package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

func TestHelpAndQuit(t *testing.T) {
	h := newHarness(t, 160, 40, true)
	h.Press("?")
	if _, ok := h.app.ctx.Dialog().(*ui.HelpDialog); !ok || !strings.Contains(h.plain(), "auth report") {
		t.Fatal("? did not show the full help")
	}
	h.Press("x")
	if h.app.ctx.Dialog() != nil {
		t.Fatal("help did not close")
	}
	for _, k := range []string{"q", "ctrl+c"} {
		if msgs := h.Press(k); !tuitest.Quits(msgs) {
			t.Fatalf("%s did not quit: %v", k, msgs)
		}
	}
	h.Press("n")
	if msgs := h.Press("ctrl+c"); !tuitest.Quits(msgs) {
		t.Fatal("ctrl+c does not quit from a form")
	}
	h.Press("esc", "w")
	if msgs := h.Press("q"); !tuitest.Quits(msgs) {
		t.Fatal("q does not quit from the webhooks screen")
	}
}

func TestStatusTicksAndConnection(t *testing.T) {
	h := newHarness(t, 160, 40, true)
	now := tuitest.Now()
	h.app.ctx.Clock = func() time.Time { return now }
	h.Send(ui.StatusMsg{Text: "saved x", Level: ui.LevelSuccess})
	if !strings.Contains(h.plain(), "saved x") {
		t.Fatal("status message not shown")
	}
	now = now.Add(10 * time.Second)
	h.Send(tickMsg(now))
	if strings.Contains(h.plain(), "saved x") {
		t.Fatal("status message did not expire")
	}
	if !strings.Contains(h.plain(), "59m02s") {
		t.Fatal("countdown did not advance")
	}
	h.Send(feed.StateMsg{State: client.ConnState{Kind: client.StateReconnecting, Delay: 5 * time.Second, Attempt: 2}})
	if !strings.Contains(h.plain(), "reconnecting in 5s, attempt 2") {
		t.Fatal("reconnecting state not shown")
	}
	h.Send(feed.StateMsg{State: client.ConnState{Kind: client.StateLive}})
	if !strings.Contains(h.plain(), "live stream") {
		t.Fatal("live state not shown")
	}
	h.Send(feed.StateMsg{State: client.ConnState{Kind: client.StatePolling, Err: errors.New("server unreachable")}})
	if !strings.Contains(h.plain(), "offline: server unreachable") {
		t.Fatal("offline state not shown")
	}
	h.Send(feed.SyncErrorMsg{Err: errors.New("list x: boom")})
	if !strings.Contains(h.plain(), "list x: boom") {
		t.Fatal("background error not shown")
	}
	h.Send(tea.BackgroundColorMsg{})
	h.Send(tea.PasteMsg{Content: "x"})
}

// TestRecoveryListsEveryInboxAgain checks that when mail flows again after
// the connection failed, every live inbox is listed again (to catch up
// with what was missed), and not before.
func TestRecoveryListsEveryInboxAgain(t *testing.T) {
	h := newHarness(t, 200, 40, true)
	listed := func() int {
		n := 0
		for _, c := range h.svc.Calls() {
			if strings.HasPrefix(c, "emails ") {
				n++
			}
		}
		return n
	}
	before := listed()
	h.Send(feed.StateMsg{State: client.ConnState{Kind: client.StateLive}})
	if listed() != before {
		t.Fatal("a healthy connection listed the inboxes again")
	}
	h.Send(feed.StateMsg{State: client.ConnState{Kind: client.StateReconnecting, Attempt: 1, Delay: time.Second}})
	h.svc.AddEmail(tuitest.DemoAddr, model.Email{ID: "missed", Subject: "Missed while offline", ReceivedAt: tuitest.Now()})
	h.Send(feed.StateMsg{State: client.ConnState{Kind: client.StateLive}})
	if got := listed() - before; got != 2 {
		t.Fatalf("recovery listed %d inboxes, want the 2 live ones", got)
	}
	if !strings.Contains(h.plain(), "Missed while offline") {
		t.Fatalf("the mail missed while offline is not shown:\n%s", h.plain())
	}
}

func TestBackgroundPicksTheme(t *testing.T) {
	a := newApp(context.Background(), Config{tick: tuitest.NoTick})
	next, _ := a.Update(tea.BackgroundColorMsg{Color: lightColor{}})
	if next.(App).ctx.Theme.Dark {
		t.Fatal("light background gave the dark theme")
	}
}

type lightColor struct{}

func (lightColor) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

// TestEveryLineFitsTheTerminal resizes through the three layouts of both
// screens: the view is always exactly the terminal's size.
func TestEveryLineFitsTheTerminal(t *testing.T) {
	h := newWebhookHarness(t, 200, 50, true)
	for _, screen := range []string{"webhooks", "mail"} {
		for _, w := range []int{200, 120, 119, 80, 79, 40} {
			h.Send(tea.WindowSizeMsg{Width: w, Height: 30})
			tuitest.RequireSize(t, h.view(), w, 30)
		}
		h.Press("esc")
		if screen == "webhooks" && h.app.showHooks {
			t.Fatal("esc did not go back to the mail screen")
		}
	}
}

func TestHostileMailNeverReachesTerminal(t *testing.T) {
	for _, size := range [][2]int{{70, 24}, {100, 30}, {160, 45}} {
		h := newHarness(t, size[0], size[1], true)
		h.Press("down", "enter")
		for _, k := range []string{"1", "2", "3", "4", "5", "6", "h"} {
			h.Press(k)
			tuitest.AssertNoControls(t, h.plain())
			tuitest.AssertNoControls(t, h.app.View().WindowTitle)
		}
	}
}

func TestWebhookKeysDoNotLeakIntoFilter(t *testing.T) {
	h := newHarness(t, 120, 40, true)
	h.Press("/")
	h.Type("w")
	if h.app.showHooks || !strings.Contains(h.plain(), "/ w") {
		t.Fatalf("w while filtering: shown=%v\n%s", h.app.showHooks, h.plain())
	}
	h.Type("q")
	if !strings.Contains(h.plain(), "/ wq") {
		t.Fatalf("q while filtering was not typed:\n%s", h.plain())
	}
}

func TestWebhookScreenOpensAndCloses(t *testing.T) {
	h := newWebhookHarness(t, 160, 40, true)
	if !h.app.showHooks || !strings.Contains(h.plain(), "Webhooks (3)") {
		t.Fatalf("w did not open the webhooks screen:\n%s", h.plain())
	}
	h.Press("enter", "esc")
	if !h.app.showHooks {
		t.Fatal("esc from the detail left the webhooks screen")
	}
	h.Press("esc")
	if h.app.showHooks || !strings.Contains(h.plain(), "Inboxes (3)") {
		t.Fatal("esc on the list did not return to the mail screen")
	}
	h.Press("w", "w")
	if h.app.showHooks {
		t.Fatal("w on the webhooks screen did not return to the mail screen")
	}
}

func TestWebhooksWithoutService(t *testing.T) {
	dark := true
	a := newApp(context.Background(), Config{Settings: &Settings{DarkTheme: &dark, Now: func() time.Time { return tuitest.Now() }}, tick: tuitest.NoTick})
	d := tuitest.Driver{T: t, Update: func(msg tea.Msg) tea.Cmd {
		next, cmd := a.Update(msg)
		a = next.(App)
		return cmd
	}}
	d.Press("w")
	if !strings.Contains(tuitest.Plain(a.View().Content), client.ErrNoService.Error()) {
		t.Fatalf("no service: the error is not shown:\n%s", tuitest.Plain(a.View().Content))
	}
}

func TestNoServerScreen(t *testing.T) {
	s := NoServerScreen()
	for _, want := range []string{"--local", "config.json", "sandview config --url", "SERVICE_API_KEY"} {
		if !strings.Contains(s, want) {
			t.Errorf("no-server screen lacks %q", want)
		}
	}
}
