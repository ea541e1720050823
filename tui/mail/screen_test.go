package mail

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

func TestNavigationKeys(t *testing.T) {
	h := newHarness(t, 140, 37)
	if h.s.Focus() != PaneEmails {
		t.Fatalf("focus = %v, want the message list, so enter opens the newest mail", h.s.Focus())
	}
	h.Press("esc")
	if h.s.Focus() != PaneEmails {
		t.Fatalf("esc from the list with nothing to clear moved the focus to %v", h.s.Focus())
	}
	h.Press("shift+tab")
	if h.s.Focus() != PaneInboxes {
		t.Fatalf("shift+tab from the list: focus %v", h.s.Focus())
	}
	h.Press("j")
	if got := h.current().info.EmailAddress; got != tuitest.PlainAddr {
		t.Fatalf("j selected %s", got)
	}
	if h.s.panes.emails.entry != h.current() {
		t.Fatal("message list does not follow the inbox selection")
	}
	h.Press("k", "G")
	if got := h.current().info.EmailAddress; got != tuitest.OldAddr {
		t.Fatalf("G selected %s", got)
	}
	h.Press("g", "enter")
	if h.s.Focus() != PaneEmails || h.current().info.EmailAddress != tuitest.DemoAddr {
		t.Fatalf("enter: focus %v inbox %s", h.s.Focus(), h.current().info.EmailAddress)
	}
	h.Press("down", "pgdown")
	if e, _, _ := h.s.panes.emails.selected(); e.ID != "e4" {
		t.Fatalf("pgdown selected %s", e.ID)
	}
	h.Press("pgup", "end")
	if e, _, _ := h.s.panes.emails.selected(); e.ID != "e4" {
		t.Fatalf("end selected %s", e.ID)
	}
	h.Press("ctrl+u")
	if e, _, _ := h.s.panes.emails.selected(); e.ID == "e4" {
		t.Fatal("ctrl+u did not move up half a page")
	}
	h.Press("home", "tab")
	if h.s.Focus() != PaneReader {
		t.Fatalf("tab: focus %v", h.s.Focus())
	}
	h.Press("shift+tab", "shift+tab")
	if h.s.Focus() != PaneInboxes {
		t.Fatalf("shift+tab: focus %v", h.s.Focus())
	}
	h.Press("shift+tab")
	if h.s.Focus() != PaneReader {
		t.Fatalf("shift+tab wraps: focus %v", h.s.Focus())
	}
	h.Press("esc")
	if h.s.Focus() != PaneEmails {
		t.Fatalf("esc from message: focus %v", h.s.Focus())
	}
	h.Press("esc")
	if h.s.Focus() != PaneEmails {
		t.Fatalf("esc from list: focus %v", h.s.Focus())
	}
}

func TestOpenFetchesContentAndMarksRead(t *testing.T) {
	h := newHarness(t, 140, 37)
	// Start from metadata only, as a list without content.
	meta := tuitest.Emails()
	for i := range meta {
		meta[i].HasContent, meta[i].Text, meta[i].AuthResults = false, "", model.AuthResults{}
	}
	h.Send(inboxesLoadedMsg{inboxes: tuitest.Inboxes()[1:]})
	h.Send(inboxesLoadedMsg{inboxes: tuitest.Inboxes()})
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: meta})
	if strings.Contains(h.shown(), "pass ") {
		t.Fatal("auth badge shown before the content is loaded")
	}
	var rec ticks
	h.ctx.Tick = rec.tick
	h.Press("enter")
	if !h.svc.Called("email demo@sandbox.test e1") || h.svc.Called("markRead demo@sandbox.test e1") {
		t.Fatalf("open did not fetch, or marked read before the dwell: %v", h.svc.Calls())
	}
	fireAll(h, &rec)
	if !h.svc.Called("markRead demo@sandbox.test e1") {
		t.Fatalf("open did not mark read after the dwell: %v", h.svc.Calls())
	}
	open, ok := h.s.panes.reader.Email()
	if !ok || !open.HasContent || !open.IsRead || !strings.Contains(open.Text, "friendly") {
		t.Fatalf("open email = %+v", open)
	}
	if !strings.Contains(h.shown(), "pass") {
		t.Fatal("auth badge missing once content is loaded")
	}
}

func TestProblemEmailShownLoudly(t *testing.T) {
	h := newHarness(t, 200, 37)
	h.Press("down", "down", "enter")
	if h.svc.Called("email demo@sandbox.test e3") {
		t.Fatal("an email that cannot be opened was fetched")
	}
	view := h.shown()
	for _, want := range []string{"DECRYPTION FAILED", "CANNOT OPEN THIS EMAIL"} {
		if !strings.Contains(view, want) {
			t.Fatalf("view lacks %q", want)
		}
	}
}

func TestTabsAndRaw(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("enter")
	wants := []string{"Hello!", "X-Mailer:", "https://example.com/welcome", "report.pdf", "Subject: Welcome", "✓ PASS"}
	for i, want := range wants {
		h.Press(fmt.Sprint(i + 1))
		if !strings.Contains(h.shown(), want) {
			t.Fatalf("tab %d lacks %q:\n%s", i+1, want, h.shown())
		}
	}
	if !h.svc.Called("raw demo@sandbox.test e1") {
		t.Fatal("raw tab did not fetch the source")
	}
	tuitest.AssertNoControls(t, h.shown())
}

func TestHTMLToggle(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("enter", "h")
	if h.ctx.Status().Text != "showing the HTML part (converted to text)" || !strings.Contains(h.shown(), "Hello HTML world") {
		t.Fatalf("h did not show the HTML part:\n%s", h.shown())
	}
	h.Press("h")
	if h.ctx.Status().Text != "showing the text part" || !strings.Contains(h.shown(), "friendly") {
		t.Fatal("h did not go back to the text part")
	}
}

func TestHTMLOnlyBodyIsConverted(t *testing.T) {
	h := newHarness(t, 140, 37)
	e := tuitest.Emails()[0]
	e.Text = ""
	e.HTML = "<p>Only &#27;[2J <i>HTML</i></p>"
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{e}})
	h.Press("enter")
	view := h.shown()
	if !strings.Contains(view, "Only") || !strings.Contains(view, "HTML converted") {
		t.Fatalf("HTML-only body not converted:\n%s", view)
	}
	tuitest.AssertNoControls(t, view)
}

func TestFilterActsOnEmailUnderCursor(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("/")
	h.Type("BOB")
	if len(h.s.panes.emails.filtered) != 1 {
		t.Fatalf("filter kept %d emails", len(h.s.panes.emails.filtered))
	}
	h.Press("enter")
	if h.s.panes.emails.find.typing {
		t.Fatal("enter did not leave the filter input")
	}
	h.Press("d", "y")
	if !h.svc.Called("deleteEmail demo@sandbox.test e4") {
		t.Fatalf("delete did not act on the filtered email: %v", h.svc.Calls())
	}
	if _, ok := h.current().email("e4"); ok {
		t.Fatal("deleted email still listed")
	}
	h.Press("esc")
	if h.s.panes.emails.find.text != "" || len(h.s.panes.emails.filtered) != 3 {
		t.Fatalf("esc did not clear the filter: %q %d", h.s.panes.emails.find.text, len(h.s.panes.emails.filtered))
	}
	h.Press("/")
	h.Type("zz")
	h.Press("backspace", "esc")
	if h.s.panes.emails.find.typing || h.s.panes.emails.find.text != "" {
		t.Fatal("esc in the filter input did not cancel it")
	}
}

func TestDeleteNeedsConfirmation(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("d", "n")
	if h.svc.Called("deleteEmail") {
		t.Fatal("deleted without confirmation")
	}
	h.Press("d", "esc")
	if h.svc.Called("deleteEmail") || h.ctx.Dialog() != nil {
		t.Fatal("esc did not cancel")
	}
	h.Press("shift+tab", "d", "y")
	if !h.svc.Called("deleteInbox demo@sandbox.test") {
		t.Fatalf("inbox not deleted: %v", h.svc.Calls())
	}
	if e, _ := h.s.state.find(tuitest.DemoAddr); e != nil {
		t.Fatal("deleted inbox still listed")
	}
}

func TestDeleteFailureKeepsEverything(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.svc.Fail(errors.New("boom"))
	h.Press("shift+tab", "d", "y")
	if e, _ := h.s.state.find(tuitest.DemoAddr); e == nil {
		t.Fatal("inbox dropped although deletion failed")
	}
	if !strings.Contains(h.shown(), "boom") {
		t.Fatal("error not shown")
	}
}

func TestMarkUnreadIsLocal(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("end", "u")
	e, _, _ := h.s.panes.emails.selected()
	if e.IsRead {
		t.Fatal("u did not mark unread")
	}
	if !strings.Contains(h.shown(), "in this session") {
		t.Fatal("status does not say unread is local")
	}
	// A resync from the server (which says read) keeps the local mark.
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: tuitest.Emails()})
	if e, _ := h.current().email("e4"); e.IsRead {
		t.Fatal("resync lost the local unread mark")
	}
	h.Press("u")
	if !h.svc.Called("markRead demo@sandbox.test e4") {
		t.Fatal("u on an unread email did not mark it read on the service")
	}
}

func TestCopyUsesOSC52(t *testing.T) {
	h := newHarness(t, 140, 37)
	msgs := h.Press("y")
	if !tuitest.Contains(msgs, tuitest.DemoAddr) {
		t.Fatalf("y did not copy the address: %v", msgs)
	}
	// The links are numbered as the server lists them.
	h.Press("enter", "3", "down")
	msgs = h.Press("y")
	if !tuitest.Contains(msgs, "mailto:alice@example.com") {
		t.Fatalf("y in links did not copy the link: %v", msgs)
	}
}

func TestOpenLinkOnlySafeSchemes(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("enter", "3", "o")
	if !h.svc.Called("open https://example.com/welcome") {
		t.Fatalf("o did not open the link: %v", h.svc.Calls())
	}
	h.Press("down", "down", "o")
	if h.svc.Called("open javascript") {
		t.Fatal("a javascript: link was opened")
	}
	if !strings.Contains(h.shown(), "only http, https and mailto") {
		t.Fatal("refusal not explained")
	}
}

func TestSaveAttachmentNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, 140, 37)
	h.Press("enter", "4")
	for i := 0; i < 2; i++ {
		h.Press("s", "ctrl+u")
		h.Type(dir)
		h.Press("enter")
		if h.ctx.Dialog() != nil {
			t.Fatalf("save prompt still open: %s", h.shown())
		}
	}
	for _, name := range []string{"report.pdf", "report (1).pdf"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(data) != "%PDF-1.4" {
			t.Fatalf("%s: %q %v", name, data, err)
		}
	}
}

func TestSaveRawAsEML(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, 140, 37)
	h.Press("enter", "5", "s", "ctrl+u")
	h.Type(dir)
	h.Press("enter")
	data, err := os.ReadFile(filepath.Join(dir, "Welcome to the sandbox.eml"))
	if err != nil || string(data) != string(tuitest.RawE1()) {
		t.Fatalf("raw not saved: %q %v", data, err)
	}
}

func TestSaveErrorKeepsPrompt(t *testing.T) {
	// A directory cannot be made under a file.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, 140, 37)
	h.Press("enter", "4", "s", "ctrl+u")
	h.Type(file + "/dir")
	h.Press("enter")
	p, ok := h.ctx.Dialog().(*ui.Prompt)
	if !ok || p.Value() != file+"/dir" || !strings.Contains(h.shown(), "not a directory") {
		t.Fatalf("error lost the prompt: %v\n%s", h.ctx.Dialog(), h.shown())
	}
}

func TestCreateInboxForm(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("n", "ctrl+u")
	h.Type("5s")
	h.Press("enter")
	if h.svc.Called("create") || !strings.Contains(h.shown(), "must be between 1m and 168h") {
		t.Fatalf("bad TTL accepted:\n%s", h.shown())
	}
	h.Press("ctrl+u")
	h.Type("2h")
	h.Press("tab")
	h.Type("me@sandbox.test")
	h.Press("tab", "space", "space", "enter")
	if !h.svc.Called("create 2h0m0s me@sandbox.test plain") {
		t.Fatalf("create call: %v", h.svc.Calls())
	}
	if h.ctx.Dialog() != nil || h.current().info.EmailAddress != "me@sandbox.test" {
		t.Fatal("created inbox not selected")
	}
}

func TestCreateInboxErrorKeepsForm(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.svc.Fail(errors.New("server says no"))
	h.Press("n", "enter")
	f, ok := h.ctx.Dialog().(*createForm)
	if !ok || f.busy || !strings.Contains(h.shown(), "server says no") {
		t.Fatalf("error not shown in the form:\n%s", h.shown())
	}
	h.Press("esc")
	if h.ctx.Dialog() != nil {
		t.Fatal("esc did not close the form")
	}
}

func TestExportAndImport(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, 140, 37)
	path := filepath.Join(dir, "demo.json")
	h.Press("e", "ctrl+u")
	h.Type(path)
	h.Press("enter")
	if !h.svc.Called("export demo@sandbox.test "+path) || h.ctx.Dialog() != nil {
		t.Fatalf("export: %v", h.svc.Calls())
	}
	// Exporting again to the same path refuses to overwrite.
	h.Press("e", "ctrl+u")
	h.Type(path)
	h.Press("enter")
	if !strings.Contains(h.shown(), "already exists") {
		t.Fatal("existing file not protected")
	}
	h.Press("esc", "i")
	h.Type(filepath.Join(dir, "missing.json"))
	h.Press("enter")
	if p, ok := h.ctx.Dialog().(*ui.Prompt); !ok || !strings.Contains(p.Err(), "no such file") {
		t.Fatalf("import error not shown: %v", h.ctx.Dialog())
	}
	h.Press("ctrl+u")
	h.Type(path)
	h.Press("enter")
	if h.ctx.Dialog() != nil || h.current().info.EmailAddress != "imported@sandbox.test" {
		t.Fatal("imported inbox not selected")
	}
}

func TestResyncAndLiveMailFlagged(t *testing.T) {
	h := newHarness(t, 200, 37)
	h.svc.AddEmail(tuitest.DemoAddr, model.Email{ID: "e9", From: "new@example.com", Subject: "Fresh", ReceivedAt: tuitest.Now()})
	h.Press("r")
	if !h.current().fresh["e9"] {
		t.Fatal("new email not flagged")
	}
	if !strings.Contains(h.shown(), "NEW") {
		t.Fatal("NEW flag not shown")
	}
	h.Send(feed.NewEmailMsg{Address: tuitest.DemoAddr, Email: model.Email{ID: "e10", Subject: "Pushed", ReceivedAt: tuitest.Now().Add(time.Second)}})
	if first, _, _ := h.s.panes.emails.selected(); first.ID != "e10" && h.s.panes.emails.entry.emails[0].ID != "e10" {
		t.Fatal("live email not first")
	}
}

func TestResizeChangesLayout(t *testing.T) {
	h := newHarness(t, 200, 47)
	for _, c := range []struct {
		w    int
		mode ui.Mode
	}{{200, ui.Wide}, {120, ui.Wide}, {119, ui.Medium}, {80, ui.Medium}, {79, ui.Narrow}, {40, ui.Narrow}} {
		h.s.SetSize(c.w, 27)
		if h.s.panes.lay.Mode != c.mode {
			t.Fatalf("width %d: mode %v", c.w, h.s.panes.lay.Mode)
		}
		tuitest.RequireSize(t, h.s.View(), c.w, 27)
	}
}

func TestMouse(t *testing.T) {
	h := newHarness(t, 160, 37)
	l := layoutOf(h, 160, 37, PaneEmails)
	// Click the second inbox (two lines per inbox, below the border).
	h.Send(tea.MouseClickMsg{X: l.inboxes.X + 2, Y: l.inboxes.Y + 1 + inboxRowHeight, Button: tea.MouseLeft})
	if h.current().info.EmailAddress != tuitest.PlainAddr {
		t.Fatalf("click selected %s", h.current().info.EmailAddress)
	}
	h.Send(tea.MouseClickMsg{X: l.inboxes.X + 2, Y: l.inboxes.Y + 1, Button: tea.MouseLeft})
	h.Send(tea.MouseClickMsg{X: l.emails.X + 3, Y: l.emails.Y + 2, Button: tea.MouseLeft})
	if e, _, _ := h.s.panes.emails.selected(); e.ID != "e2" || h.s.Focus() != PaneEmails {
		t.Fatalf("click on a message selected %s", e.ID)
	}
	h.Send(tea.MouseClickMsg{X: l.emails.X + 3, Y: l.emails.Y + 2, Button: tea.MouseLeft})
	if h.s.panes.shown().id != "e2" {
		t.Fatal("clicking the selected message did not open it")
	}
	h.Send(tea.MouseWheelMsg{X: l.emails.X + 3, Y: l.emails.Y + 2, Button: tea.MouseWheelDown})
	if e, _, _ := h.s.panes.emails.selected(); e.ID != "e4" {
		t.Fatalf("wheel moved to %s", e.ID)
	}
	h.Press("esc", "g", "enter")
	l = layoutOf(h, 160, 12, PaneReader) // a body taller than the reader
	before := h.s.panes.reader.View()
	h.Send(tea.MouseWheelMsg{X: l.reader.X + 3, Y: l.reader.Y + 5, Button: tea.MouseWheelDown})
	if h.s.panes.reader.View() == before {
		t.Fatal("the wheel did not scroll the reader")
	}
}

func TestHostileMailNeverReachesTerminal(t *testing.T) {
	for _, size := range [][2]int{{70, 21}, {100, 27}, {160, 42}} {
		h := newHarness(t, size[0], size[1])
		h.Press("down", "enter")
		for _, k := range []string{"1", "2", "3", "4", "5", "6", "h"} {
			h.Press(k)
			tuitest.AssertNoControls(t, h.shown())
			tuitest.AssertNoControls(t, h.s.WindowTitle())
		}
	}
}

func TestLoadingIndicatorAndErrors(t *testing.T) {
	h := newHarness(t, 200, 37)
	h.Send(inboxesLoadedMsg{inboxes: tuitest.Inboxes()[1:]})
	h.Send(inboxesLoadedMsg{inboxes: tuitest.Inboxes()})
	e, _ := h.s.state.find(tuitest.DemoAddr)
	e.loading = true
	h.s.panes.inboxes.list.Select(0)
	h.s.panes.sync()
	frame0 := h.shown()
	if !strings.Contains(frame0, "Loading and decrypting emails") {
		t.Fatalf("no progress indicator while loading:\n%s", frame0)
	}
	h.Send(spinner.TickMsg{ID: h.s.panes.emails.spinner.ID()})
	if h.shown() == frame0 {
		t.Fatal("spinner did not move")
	}
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, err: errors.New("server unreachable")})
	if !strings.Contains(h.shown(), "Could not load emails: server unreachable") {
		t.Fatal("load error not shown")
	}
	// Per-email failures: the list is shown and the failure reported.
	joined := errors.Join(errors.New("decryption failed"), errors.New("decryption failed"))
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: tuitest.Emails(), err: joined})
	if len(e.emails) != 4 || !strings.Contains(h.shown(), "2 emails could not be opened") {
		t.Fatalf("partial load not shown: %d\n%s", len(e.emails), h.shown())
	}
}

func TestResultErrorsAreShown(t *testing.T) {
	cases := []struct {
		msg  any
		want string
	}{
		{emailLoadedMsg{address: tuitest.DemoAddr, err: errors.New("email gone")}, "open email: email gone"},
		{bulkDoneMsg{op: opMarkRead, failed: []emailRef{{tuitest.DemoAddr, "e1"}}, err: errors.New("nope")}, "marked read: nope"},
		{inboxDeletedMsg{address: tuitest.DemoAddr, err: errors.New("denied")}, "delete inbox: denied"},
		{bulkDoneMsg{op: opDelete, failed: []emailRef{{tuitest.DemoAddr, "e1"}}, err: errors.New("denied")}, "deleted: denied"},
		{ui.PromptDoneMsg{Err: errors.New("disk full")}, "disk full"},
		{inboxAddedMsg{verb: "created", err: errors.New("quota")}, "created: quota"},
		{inboxAddedMsg{verb: "imported", err: errors.New("bad file")}, "imported: bad file"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			h := newHarness(t, 160, 37)
			h.Send(c.msg)
			if !strings.Contains(h.shown(), c.want) {
				t.Fatalf("view lacks %q:\n%s", c.want, h.shown())
			}
		})
	}
}

func TestMarkReadFailureRestoresUnread(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("end", "u")
	h.Send(bulkDoneMsg{op: opMarkRead, failed: []emailRef{{tuitest.DemoAddr, "e4"}}, err: errors.New("nope")})
	if em, _ := h.current().email("e4"); em.IsRead {
		t.Fatal("failed mark-read left the email read")
	}
}

func TestRawErrorShown(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("down", "enter", "5")
	if !strings.Contains(h.shown(), "Could not fetch the raw source: raw not found") {
		t.Fatalf("raw error not shown:\n%s", h.shown())
	}
}

func TestLoadedEmailWithProblem(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("enter")
	h.Send(emailLoadedMsg{address: tuitest.DemoAddr, email: model.Email{ID: "e1", Problem: "decryption failed"}, err: errors.New("decryption failed")})
	view := h.shown()
	if !strings.Contains(view, "DECRYPTION FAILED") || !strings.Contains(view, "could not be opened") {
		t.Fatalf("problem not loud:\n%s", view)
	}
}

// TestTwoColumnsBelow160: from 120 to 159 columns the inbox pane takes the
// message list's place only while it has the focus, so the list keeps the
// room of the subject; from 160 the three panes stand side by side.
func TestTwoColumnsBelow160(t *testing.T) {
	h := newHarness(t, 80, 24)
	for _, c := range []struct {
		width       int
		focus       Pane
		inbox, list bool
		listAtLeast int
	}{
		{120, PaneEmails, false, true, 60},
		{120, PaneInboxes, true, false, 0},
		{159, PaneReader, false, true, 79},
		{160, PaneEmails, true, true, 50},
		{200, PaneInboxes, true, true, 60},
	} {
		l := layoutOf(h, c.width, 40, c.focus)
		if (l.inboxes.W > 0) != c.inbox || (l.emails.W > 0) != c.list || l.emails.W < c.listAtLeast {
			t.Errorf("%d columns, focus %v: inboxes %+v, list %+v", c.width, c.focus, l.inboxes, l.emails)
		}
		if l.reader.W*2 < c.width {
			t.Errorf("%d columns: the reader is %d wide, less than half", c.width, l.reader.W)
		}
		if l.inboxes.W+l.emails.W+l.reader.W != c.width {
			t.Errorf("%d columns: panes %d+%d+%d do not fill the width", c.width, l.inboxes.W, l.emails.W, l.reader.W)
		}
	}
}
