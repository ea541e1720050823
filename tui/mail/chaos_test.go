package mail

import (
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/tuitest"
)

// TestChaosDialogSetsGreylistingAndShowsTheBadge: C opens the dialog of
// the selected inbox; greylisting switched on for 10 minutes is sent as
// the spec's config; the inbox then wears a badge with the time left.
func TestChaosDialogSetsGreylistingAndShowsTheBadge(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("C")
	shown := h.shown()
	for _, want := range []string{"Chaos on " + tuitest.DemoAddr, "off", "[ ] Latency", "[ ] Greylist", "For"} {
		if !strings.Contains(shown, want) {
			t.Fatalf("the dialog lacks %q:\n%s", want, shown)
		}
	}
	h.Press("down", "down", "down", "down", "space") // Greylist, its value 2
	if !strings.Contains(h.shown(), "[x] Greylist") {
		t.Fatalf("space did not switch greylisting on:\n%s", h.shown())
	}
	h.Press("enter")
	if _, open := h.ctx.Dialog().(*chaosForm); open {
		t.Fatalf("the dialog stayed open:\n%s", h.shown())
	}
	cfg := h.svc.ChaosOf(tuitest.DemoAddr)
	if !cfg.Enabled || cfg.Greylist == nil || cfg.Greylist.MaxAttempts != 2 || cfg.Latency != nil || cfg.ExpiresAt == nil {
		t.Fatalf("the config sent: %+v", cfg)
	}
	if got := h.ctx.Status().Text; got != "chaos on "+tuitest.DemoAddr+": active, 10m00s left" {
		t.Fatalf("status %q", got)
	}
	if !strings.Contains(h.shown(), "chaos 10m00s") {
		t.Fatalf("no badge with the time left:\n%s", h.shown())
	}
	// In the inbox pane the badge comes first: a narrow pane shows it.
	if row := h.s.panes.inboxes.row(h.current(), false, 26); !strings.HasPrefix(tuitest.Plain(row[1]), "  chaos 10m00s · ") {
		t.Fatalf("the inbox row %q does not start with the badge", tuitest.Plain(row[1]))
	}
	// Opened again, the dialog shows what the inbox holds.
	h.Press("C")
	if shown := h.shown(); !strings.Contains(shown, "[x] Greylist") || !strings.Contains(shown, "active, 10m00s left") {
		t.Fatalf("the dialog does not show the config:\n%s", shown)
	}
	// Every kind off applies as chaos off: the badge goes.
	h.Press("down", "down", "down", "down", "space", "enter")
	if !h.svc.Called("disableChaos " + tuitest.DemoAddr) {
		t.Fatalf("chaos not switched off: %v", h.svc.Calls())
	}
	if strings.Contains(h.shown(), "chaos 10m") {
		t.Fatalf("the badge stayed:\n%s", h.shown())
	}
}

// TestChaosDialogRefusesABadValue: a value out of range is refused in
// the dialog with the range allowed; nothing is sent.
func TestChaosDialogRefusesABadValue(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.Press("C", "ctrl+u")
	h.Type("99s")
	h.Press("enter")
	if h.svc.Called("setChaos") || !strings.Contains(h.shown(), "from 0 to 60s") {
		t.Fatalf("a latency of 99s was not refused with the range:\n%s", h.shown())
	}
}

// TestChaosDialogOnAServerWithChaosOff says, in one line, how to switch
// chaos on.
func TestChaosDialogOnAServerWithChaosOff(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.svc.DisableChaosFeature()
	h.Press("C")
	shown := h.shown()
	if !strings.Contains(shown, "Chaos is off on this server") || !strings.Contains(shown, "--chaos") || strings.Contains(shown, "Greylist") {
		t.Fatalf("the dialog does not say how to switch chaos on:\n%s", shown)
	}
	h.Press("esc")
	if h.ctx.Dialog() != nil {
		t.Fatal("esc did not close the dialog")
	}
}

// TestChaosActionInTheActivity: a chaos action of the feed is in the
// status line and the log as the one-line text, sanitized, and the
// inbox's config is read for its badge.
func TestChaosActionInTheActivity(t *testing.T) {
	h := newHarness(t, 140, 37)
	exp := "2099-01-01T00:00:00Z"
	h.svc.SetChaos(t.Context(), tuitest.DemoAddr, model.ChaosConfig{Enabled: true, ExpiresAt: &exp, Greylist: &model.ChaosGreylist{Enabled: true, MaxAttempts: 2}})
	h.Send(feed.ChaosMsg{Address: tuitest.DemoAddr, Action: model.ChaosAction{Type: model.ChaosTypeGreylist,
		Remote: "127.0.0.1", Sender: "app@x.test\x1b[2J", Attempt: 1, MaxAttempts: 2}})
	want := "chaos: greylisted 127.0.0.1 <app@x.test>, attempt 1 of 2 · " + tuitest.DemoAddr
	if got := h.ctx.Status().Text; got != want {
		t.Fatalf("status %q, want %q", got, want)
	}
	log := h.ctx.LogEntries()
	if len(log) == 0 || log[len(log)-1].Text != want {
		t.Fatalf("log %+v", log)
	}
	if !h.svc.Called("chaos "+tuitest.DemoAddr) || !strings.Contains(h.shown(), "chaos ") {
		t.Fatalf("the config was not read for the badge: %v\n%s", h.svc.Calls(), h.shown())
	}
}

// TestChaosBadgeFollowsAChangeMadeElsewhere: chaos switched off elsewhere
// (the CLI, another user) leaves the badge until the next chaos action
// that comes more than chaosReread after the config was read; that one
// has it read again and the badge goes. An action sooner reads nothing.
func TestChaosBadgeFollowsAChangeMadeElsewhere(t *testing.T) {
	h := newHarness(t, 140, 37)
	exp := "2099-01-01T00:00:00Z"
	h.svc.SetChaos(t.Context(), tuitest.DemoAddr, model.ChaosConfig{Enabled: true, ExpiresAt: &exp, Greylist: &model.ChaosGreylist{Enabled: true, MaxAttempts: 2}})
	action := feed.ChaosMsg{Address: tuitest.DemoAddr, Action: model.ChaosAction{Type: model.ChaosTypeGreylist, Remote: "127.0.0.1", Sender: "app@x.test", Attempt: 1, MaxAttempts: 2}}
	h.Send(action)
	if !strings.Contains(h.shown(), "chaos ") {
		t.Fatalf("no badge:\n%s", h.shown())
	}
	if err := h.svc.DisableChaos(t.Context(), tuitest.DemoAddr); err != nil {
		t.Fatal(err)
	}
	reads := func() int { return strings.Count(strings.Join(h.svc.Calls(), "\n"), "chaos "+tuitest.DemoAddr) }
	before := reads()
	h.Send(action)
	if reads() != before || !strings.Contains(h.shown(), "chaos ") {
		t.Fatalf("an action right after the read read the config again (%d reads, %d before)", reads(), before)
	}
	h.ctx.Now = h.ctx.Now.Add(chaosReread + time.Second)
	h.Send(action)
	if reads() != before+1 || strings.Contains(h.shown(), "chaos ") {
		t.Fatalf("after %v the badge stays (%d reads, %d before):\n%s", chaosReread, reads(), before, h.shown())
	}
}
