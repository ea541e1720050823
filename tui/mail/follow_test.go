package mail

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/tui/tuitest"
)

// TestOpeningIsNoCursorMove: mails A and B arrive, B is opened, read past
// the dwell and closed; mail C arrives: the cursor and the preview go to C
// and enter opens C. While the reader has the keyboard, new mail leaves
// the reader on its mail; only moving in the list stops the following.
func TestOpeningIsNoCursorMove(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {140, 37}} {
		h := newHarness(t, size[0], size[1])
		rec := withTicks(h)
		h.Press("shift+tab", "j", "tab")
		h.Send(feedNewEmail(tuitest.PlainAddr, mailTo(tuitest.PlainAddr, "a", "Mail A", time.Second)))
		h.Send(feedNewEmail(tuitest.PlainAddr, mailTo(tuitest.PlainAddr, "b", "Mail B", 2*time.Second)))
		fireAll(h, rec)
		h.Press("enter")
		fireAll(h, rec)
		h.Send(feedNewEmail(tuitest.PlainAddr, mailTo(tuitest.PlainAddr, "c", "Mail C", 3*time.Second)))
		fireAll(h, rec)
		if !h.s.panes.reader.Showing(tuitest.PlainAddr, "b") || h.s.Focus() != PaneReader {
			t.Fatalf("%v: new mail changed what the open reader shows: %q", size, h.s.panes.shown().id)
		}
		h.Press("esc")
		if size[0] >= 80 && !h.s.panes.reader.Showing(tuitest.PlainAddr, "c") {
			t.Fatalf("%v: back in the list, the preview shows %q while the cursor is on the newest", size, h.s.panes.shown().id)
		}
		fireAll(h, rec)
		if h.selected() != "c" {
			t.Fatalf("%v: after open and close the cursor stays on %q, not on the newest mail", size, h.selected())
		}
		if size[0] >= 80 && !h.s.panes.reader.Showing(tuitest.PlainAddr, "c") {
			t.Fatalf("%v: the preview shows %q, the cursor is on c", size, h.s.panes.shown().id)
		}
		h.Press("enter")
		if !h.s.panes.reader.Showing(tuitest.PlainAddr, "c") {
			t.Fatalf("%v: enter opened %q, want the newest c", size, h.s.panes.shown().id)
		}
		// Scrolling and switching the reader's tabs are no cursor moves.
		h.Press("h", "G", "3", "esc")
		h.Send(feedNewEmail(tuitest.PlainAddr, mailTo(tuitest.PlainAddr, "d", "Mail D", 4*time.Second)))
		fireAll(h, rec)
		if h.selected() != "d" {
			t.Fatalf("%v: after h G 3 in the reader, new mail left the cursor on %q", size, h.selected())
		}
		// A move in the list stops the following.
		h.Press("j")
		h.Send(feedNewEmail(tuitest.PlainAddr, mailTo(tuitest.PlainAddr, "e", "Mail E", 5*time.Second)))
		if h.selected() != "c" {
			t.Fatalf("%v: new mail moved the cursor the user placed: on %q", size, h.selected())
		}
	}
}

// TestNarrowRowsKeepTheAttachmentCount: at 60x20 a mail with an
// attachment still shows a compact "+1"; wide rows say "+1att".
func TestNarrowRowsKeepTheAttachmentCount(t *testing.T) {
	for _, c := range []struct {
		w, h int
		want string
	}{{60, 20, " +1 "}, {140, 37, "+1att"}} {
		h := newHarness(t, c.w, c.h)
		line := ""
		for _, l := range strings.Split(h.shown(), "\n") {
			if strings.Contains(l, "Welcome to the sandbox") {
				line = l
				break
			}
		}
		if !strings.Contains(line, c.want) {
			t.Fatalf("%dx%d: the row of a mail with an attachment: %q, want %q", c.w, c.h, line, c.want)
		}
	}
}

// TestAttachmentCountStandsApartFromTheSubject: a subject that fills its
// column and ten attachments (two digits) keep a space between them, at
// every width that shows the count.
func TestAttachmentCountStandsApartFromTheSubject(t *testing.T) {
	for _, c := range []struct {
		w, h int
		want string
	}{{60, 20, "… +10 "}, {80, 24, "… +10att "}, {140, 37, "… +10att "}} {
		h := newHarness(t, c.w, c.h)
		m := mailTo(tuitest.DemoAddr, "many", "Quarterly report with every spreadsheet and chart attached (10 files)", time.Minute)
		m.HasContent, m.AuthResults = true, tuitest.PassingAuth()
		for i := range 10 {
			m.Attachments = append(m.Attachments, model.Attachment{Filename: fmt.Sprintf("sheet%d.csv", i), ContentType: "text/csv", Size: 1})
		}
		h.Send(feedNewEmail(tuitest.DemoAddr, m))
		if row := rowOf(t, h.shown(), "Quarterly"); !strings.Contains(row, c.want) {
			t.Errorf("%dx%d: row %q, want %q", c.w, c.h, row, c.want)
		}
	}
}

// TestLongSubjectWrapsInTheSummary: at 120x40 a subject longer than the
// reader's summary line goes on to a second line, shown whole.
func TestLongSubjectWrapsInTheSummary(t *testing.T) {
	h := newHarness(t, 120, 40)
	subject := "Your order 10234 from Acme Widgets has shipped and arrives Thursday between nine and five"
	m := mailTo(tuitest.DemoAddr, "long", subject, time.Minute)
	m.Text = "the body"
	h.Send(feedNewEmail(tuitest.DemoAddr, m))
	h.Press("enter")
	if !h.s.panes.reader.Showing(tuitest.DemoAddr, "long") {
		t.Fatalf("enter opened %q", h.s.panes.shown().id)
	}
	shown := h.shown()
	for _, w := range []string{"between nine and five", "Thursday"} {
		if !strings.Contains(shown, w) {
			t.Fatalf("the subject's %q is shown nowhere in the summary:\n%s", w, shown)
		}
	}
}
