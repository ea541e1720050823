package mail

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/theme"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// withTicks records the screen's timers, to fire them when the test
// chooses.
func withTicks(h *harness) *ticks {
	rec := &ticks{}
	h.ctx.Tick = rec.tick
	return rec
}

// mailTo is a fresh email for an inbox, received at now+offset.
func mailTo(address, id, subject string, offset time.Duration) model.Email {
	return model.Email{ID: id, From: "app@shop.example", To: []string{address}, Subject: subject,
		ReceivedAt: tuitest.Now().Add(offset), HasContent: true, Text: subject + " body"}
}

// TestLookingMarksNothingRead moves through the list, lets the preview
// show each mail, searches, switches inbox and lets a mail arrive in an
// empty inbox, every timer fired: nothing is marked read on the service.
// Opening a mail then marks it, after the dwell.
func TestLookingMarksNothingRead(t *testing.T) {
	for _, width := range []int{140, 100} {
		h := newHarness(t, width, 37)
		rec := withTicks(h)
		h.Press("j", "j")
		fireAll(h, rec)
		h.Press("k")
		fireAll(h, rec)
		if h.s.panes.shown().id == "" {
			t.Fatalf("width %d: the preview did not follow the cursor", width)
		}
		h.search("e")
		fireAll(h, rec)
		h.Press("esc", "shift+tab", "j")
		fireAll(h, rec)
		h.Press("tab")
		h.Send(feedNewEmail(tuitest.PlainAddr, mailTo(tuitest.PlainAddr, "n1", "Arrived in an empty inbox", time.Second)))
		fireAll(h, rec)
		if !h.s.panes.reader.Showing(tuitest.PlainAddr, "n1") {
			t.Fatalf("width %d: the preview does not show the mail that arrived: %q", width, h.s.panes.shown().id)
		}
		if h.svc.Called("markRead") || h.current().unread != 1 {
			t.Fatalf("width %d: looking marked mail read: %v (unread %d)", width, h.svc.Calls(), h.current().unread)
		}
		h.Press("enter")
		if h.svc.Called("markRead") {
			t.Fatalf("width %d: opening marked read before the dwell", width)
		}
		fireAll(h, rec)
		if !h.svc.Called("markRead plain@sandbox.test n1") || h.current().unread != 0 {
			t.Fatalf("width %d: the opened mail was not marked read after the dwell: %v", width, h.svc.Calls())
		}
	}
}

// TestReadNeedsTheReaderFocused: a mail opened and left before the dwell
// ends stays unread; the reader focused with tab marks what it shows;
// u during the dwell is the user's last word.
func TestReadNeedsTheReaderFocused(t *testing.T) {
	h := newHarness(t, 140, 37)
	rec := withTicks(h)
	h.Press("enter", "esc")
	fireAll(h, rec)
	if h.svc.Called("markRead") {
		t.Fatal("a mail left before the dwell ended was marked read")
	}
	h.Press("tab")
	fireAll(h, rec)
	if !h.svc.Called("markRead demo@sandbox.test e1") {
		t.Fatalf("the focused reader did not mark its mail read: %v", h.svc.Calls())
	}
	h.Press("esc", "j", "enter", "u", "u")
	fireAll(h, rec)
	if m, _ := h.current().email("e2"); m.IsRead {
		t.Fatal("the dwell overrode u: the mail the user marked unread is read")
	}
}

// TestTheDwellIsOneSecond: the read timer an open starts is readDwell,
// one second, as docs/keys-and-search.md and the help say.
func TestTheDwellIsOneSecond(t *testing.T) {
	h := newHarness(t, 140, 37)
	var dwells []time.Duration
	h.ctx.Tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		if _, ok := fn(tuitest.Now()).(readMsg); ok {
			dwells = append(dwells, d)
		}
		return nil
	}
	h.Press("enter")
	if len(dwells) != 1 || dwells[0] != time.Second {
		t.Fatalf("the read timers started: %v", dwells)
	}
}

// TestNarrowOpenMarksReadAfterTheDwell: in the narrow layout, where the
// list and the reader take turns, enter opens and the dwell marks.
func TestNarrowOpenMarksReadAfterTheDwell(t *testing.T) {
	h := newHarness(t, 70, 30)
	rec := withTicks(h)
	h.Press("j", "j", "k")
	fireAll(h, rec)
	if h.svc.Called("markRead") {
		t.Fatal("moving in the narrow list marked mail read")
	}
	h.Press("enter")
	fireAll(h, rec)
	if !h.svc.Called("markRead demo@sandbox.test e2") {
		t.Fatalf("open in the narrow layout: %v", h.svc.Calls())
	}
}

// TestCursorFollowsTheNewestUntilMoved: mail A then B arrive in an empty
// inbox; B is on top and enter opens B. Once the user moved the cursor,
// new mail never moves it.
func TestCursorFollowsTheNewestUntilMoved(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("shift+tab", "j", "tab")
	h.Send(feedNewEmail(tuitest.PlainAddr, mailTo(tuitest.PlainAddr, "a", "Mail A", time.Second)))
	h.Send(feedNewEmail(tuitest.PlainAddr, mailTo(tuitest.PlainAddr, "b", "Mail B", 2*time.Second)))
	if h.selected() != "b" {
		t.Fatalf("the cursor is on %q, not on the newest mail", h.selected())
	}
	h.Press("enter")
	if !h.s.panes.reader.Showing(tuitest.PlainAddr, "b") {
		t.Fatalf("enter opened %q, want b", h.s.panes.shown().id)
	}
	h.Press("esc", "j")
	h.Send(feedNewEmail(tuitest.PlainAddr, mailTo(tuitest.PlainAddr, "c", "Mail C", 3*time.Second)))
	if h.selected() != "a" {
		t.Fatalf("new mail moved the cursor the user placed: on %q", h.selected())
	}
	other := newHarness(t, 140, 37)
	rec := withTicks(other)
	other.Send(feedNewEmail(tuitest.DemoAddr, mailTo(tuitest.DemoAddr, "z", "Newest", time.Minute)))
	if other.selected() != "z" {
		t.Fatalf("a cursor never moved left the newest mail for %q", other.selected())
	}
	fireAll(other, rec)
	other.Press("tab")
	if !other.s.panes.reader.Showing(tuitest.DemoAddr, "z") {
		t.Fatalf("tab did not read the newest mail: %q", other.s.panes.shown().id)
	}
	other.Send(feedNewEmail(tuitest.DemoAddr, mailTo(tuitest.DemoAddr, "y", "Newer still", 2*time.Minute)))
	if other.selected() != "z" || !other.s.panes.reader.Showing(tuitest.DemoAddr, "z") {
		t.Fatalf("new mail moved the cursor off the mail being read: on %q", other.selected())
	}
}

// TestEscInTheListNeverLeavesIt: esc clears the marks, then the search,
// then stays; space space d after it deletes what was marked, never the
// inbox; the inbox pane refuses to delete the inbox while mail is marked.
func TestEscInTheListNeverLeavesIt(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.search("e")
	h.Press("space", "space", "esc")
	if h.s.state.markedCount() != 0 || !h.s.panes.emails.find.active() {
		t.Fatal("esc did not clear the marks first")
	}
	h.Press("esc")
	if h.s.panes.emails.find.active() || h.s.Focus() != PaneEmails {
		t.Fatal("esc did not clear the search second")
	}
	h.Press("esc", "esc")
	if h.s.Focus() != PaneEmails {
		t.Fatalf("esc with nothing to clear moved the focus to %v", h.s.Focus())
	}
	h.Press("g", "space", "space", "d")
	if q := h.confirmText(); !strings.Contains(q, "Delete 2 marked emails") || strings.Contains(q, "inbox") {
		t.Fatalf("space space d asks %q", q)
	}
	h.Press("n", "shift+tab", "d")
	if h.ctx.Dialog() != nil || !strings.Contains(h.shown(), "2 emails are marked") {
		t.Fatalf("d in the inbox pane with mail marked:\n%s", h.shown())
	}
	h.Press("tab", "esc", "shift+tab", "d")
	if q := h.confirmText(); !strings.Contains(q, "Delete the inbox demo@sandbox.test itself") || !strings.Contains(q, "itself and all its 4 emails") || !strings.Contains(q, "The address goes, not only its mail.") {
		t.Fatalf("the inbox's delete asks %q", q)
	}
}

// TestFocusIsMarkedInTheTitle: the focused pane's title, and only it,
// starts with the marker, in colour and without.
func TestFocusIsMarkedInTheTitle(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		ctx := tuitest.Context(true)
		ctx.Theme = theme.New(true, noColor)
		h := newHarnessOn(t, ctx, 140, 37, ui.Settings{})
		for _, step := range []struct {
			key, title string
		}{{"", "▶ Messages"}, {"tab", "▶ Message "}, {"tab", "▶ Inboxes"}, {"tab", "▶ Messages"}} {
			if step.key != "" {
				h.Press(step.key)
			}
			v := tuitest.Plain(h.s.View())
			corner := map[bool]string{false: "╭─ ", true: "┏━ "}[noColor]
			if !strings.Contains(v, corner+step.title) || strings.Count(v, "▶") != 1 {
				t.Fatalf("no colour %v, after %q: want one marker, on %q:\n%s", noColor, step.key, step.title, v)
			}
		}
	}
}

// TestReaderTakesHalfWhenWide: from 120 columns the reader is at least
// half the width, and the three panes fill it.
func TestReaderTakesHalfWhenWide(t *testing.T) {
	h := newHarness(t, 80, 24)
	for width := 120; width <= 320; width++ {
		l := layoutOf(h, width, 40, PaneEmails)
		if l.mode != ui.Wide || 2*l.reader.W < width || l.inboxes.W+l.emails.W+l.reader.W != width || l.emails.W < 20 {
			t.Fatalf("width %d: inboxes %d, emails %d, reader %d", width, l.inboxes.W, l.emails.W, l.reader.W)
		}
	}
}

// TestSubjectIsTheWidestColumn lays out the message list's rows at every
// terminal width from 80: the subject is wider than the sender and the
// recipient, which never pass their cap.
func TestSubjectIsTheWidestColumn(t *testing.T) {
	h := newHarness(t, 80, 24)
	for width := 80; width <= 320; width++ {
		l := layoutOf(h, width, 40, PaneEmails)
		row := l.emails.W - 2
		for n := range 8 {
			need := rowNeeds{to: n&1 != 0, fresh: n&2 != 0, att: n&4 != 0}
			c := columnsFor(row, need)
			if c.subject <= c.from || c.subject <= c.to || c.from > nameColumnMax || c.to > nameColumnMax {
				t.Fatalf("terminal %d (row %d, %+v): %+v", width, row, need, c)
			}
		}
	}
}

// TestReaderLetsGoOfOtherInboxesMail: after creating an empty inbox,
// importing one or switching inbox, the reader no longer shows a mail of
// the inbox selected before; deleting the shown mail clears it.
func TestReaderLetsGoOfOtherInboxesMail(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("enter", "esc")
	if !h.s.panes.reader.Showing(tuitest.DemoAddr, "e1") {
		t.Fatal("enter did not open e1")
	}
	h.Press("n", "enter")
	if h.current().info.EmailAddress != "new@sandbox.test" || h.s.panes.shown().id != "" || strings.Contains(h.shown(), "friendly email") {
		t.Fatalf("after creating an empty inbox the reader shows %q:\n%s", h.s.panes.shown().id, h.shown())
	}
	h.Press("shift+tab", "g", "tab", "enter")
	path := fmt.Sprintf("%s/imported.json", t.TempDir())
	h.svc.ExportInbox(tuitest.DemoAddr, path)
	h.Press("i", "ctrl+u")
	h.Type(path)
	h.Press("enter")
	if h.current().info.EmailAddress != "imported@sandbox.test" || h.s.panes.shown().id != "" {
		t.Fatalf("after an import the reader shows %q of %q", h.s.panes.shown().id, h.s.panes.shown().address)
	}
	h.Press("shift+tab", "g", "tab", "enter", "d", "y")
	if h.s.panes.shown().id != "" || h.s.Focus() == PaneReader {
		t.Fatalf("the deleted mail is still shown: %q, focus %v", h.s.panes.shown().id, h.s.Focus())
	}
}
