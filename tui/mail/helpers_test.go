package mail

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"sandview/model"
	"sandview/tui/desktop"
	"sandview/tui/feed"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// harness is the mail screen over the fixture service, driven as the
// program drives it.
type harness struct {
	tuitest.Driver
	ctx *ui.Context
	s   *Screen
	svc *tuitest.Service
}

// newHarness returns the mail screen over a fake service holding the
// fixtures, width x height, with the demo and plain inboxes loaded as the
// live feed loads them.
func newHarness(t testing.TB, width, height int) *harness {
	t.Helper()
	return newHarnessWith(t, width, height, ui.Settings{SMTPHint: "send mail to demo@sandbox.test via SMTP 127.0.0.1:1025"})
}

// newHarnessWith is newHarness with the TUI's settings (the opener is
// the harness's).
func newHarnessWith(t testing.TB, width, height int, set ui.Settings) *harness {
	t.Helper()
	return newHarnessOn(t, tuitest.Context(true), width, height, set)
}

// newHarnessOn is newHarnessWith on the context ctx.
func newHarnessOn(t testing.TB, ctx *ui.Context, width, height int, set ui.Settings) *harness {
	t.Helper()
	svc := tuitest.NewFixtureService()
	set.Open = func(_ context.Context, target string) error { svc.Record("open %s", target); return nil }
	if set.TempDir == "" {
		set.TempDir = desktop.OpenedDir(t.TempDir())
	}
	s := New(ctx, context.Background(), svc, &set)
	s.SetSize(width, height)
	h := &harness{Driver: tuitest.ScreenDriver(t, ctx, s), ctx: ctx, s: s, svc: svc}
	h.Send(feed.InboxReadyMsg{Address: tuitest.DemoAddr})
	h.Send(feed.InboxReadyMsg{Address: tuitest.PlainAddr})
	return h
}

// shown is what the user sees, without styling.
func (h *harness) shown() string { return tuitest.Shown(h.ctx, h.s) }

// current is the selected inbox.
func (h *harness) current() *inboxEntry { return h.s.panes.inboxes.selected() }

// selected is the email under the list's cursor.
func (h *harness) selected() string {
	e, _, _ := h.s.panes.emails.selected()
	return e.ID
}

// rest lets the list rest: the fill the last move waits for runs (the
// timers are off in tests), fetching what the rows lack.
func (h *harness) rest() { h.Send(fillMsg{seq: h.s.filler.seq}) }

// feedNewEmail is a live email as the feed delivers it.
func feedNewEmail(address string, e model.Email) feed.NewEmailMsg {
	return feed.NewEmailMsg{Address: address, Email: e}
}

// plainLines is the view without any escape sequence, line by line.
func plainLines(view string) []string { return strings.Split(ansi.Strip(view), "\n") }

// placed is where the layout put the mail screen's panes.
type placed struct {
	mode                          ui.Mode
	inboxes, emails, reader, auth ui.Rect
}

// layoutOf lays the screen of h out in width x height cells with the
// focus on pane focus, and says where its panes went.
func layoutOf(h *harness, width, height int, focus Pane) placed {
	p := h.s.panes
	p.ring.Focus(int(focus))
	h.s.SetSize(width, height)
	l := p.lay
	return placed{l.Mode, l.Of(p.inboxes), l.Of(p.emails), l.Of(p.reader), l.Of(p.auth)}
}
