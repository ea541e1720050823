package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
)

func TestNavigationKeys(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	if m.focus != paneInboxes {
		t.Fatalf("focus = %v, want inboxes", m.focus)
	}
	press(t, m, "j")
	if got := m.current().info.EmailAddress; got != plainAddr {
		t.Fatalf("j selected %s", got)
	}
	if m.messages.entry != m.current() {
		t.Fatal("message list does not follow the inbox selection")
	}
	press(t, m, "k", "G")
	if got := m.current().info.EmailAddress; got != oldAddr {
		t.Fatalf("G selected %s", got)
	}
	press(t, m, "g", "enter")
	if m.focus != paneMessages || m.current().info.EmailAddress != demoAddr {
		t.Fatalf("enter: focus %v inbox %s", m.focus, m.current().info.EmailAddress)
	}
	press(t, m, "down", "pgdown")
	if e, _ := m.messages.selected(); e.ID != "e4" {
		t.Fatalf("pgdown selected %s", e.ID)
	}
	press(t, m, "pgup", "end")
	if e, _ := m.messages.selected(); e.ID != "e4" {
		t.Fatalf("end selected %s", e.ID)
	}
	press(t, m, "home", "tab")
	if m.focus != paneMessage {
		t.Fatalf("tab: focus %v", m.focus)
	}
	press(t, m, "shift+tab", "shift+tab")
	if m.focus != paneInboxes {
		t.Fatalf("shift+tab: focus %v", m.focus)
	}
	press(t, m, "shift+tab")
	if m.focus != paneMessage {
		t.Fatalf("shift+tab wraps: focus %v", m.focus)
	}
	press(t, m, "esc")
	if m.focus != paneMessages {
		t.Fatalf("esc from message: focus %v", m.focus)
	}
	press(t, m, "esc")
	if m.focus != paneInboxes {
		t.Fatalf("esc from list: focus %v", m.focus)
	}
}

func TestOpenFetchesContentAndMarksRead(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	// Start from metadata only, as a list without content.
	meta := fixtureEmails()
	for i := range meta {
		meta[i].HasContent, meta[i].Text, meta[i].AuthResults = false, "", model.AuthResults{}
	}
	send(t, m, inboxesLoadedMsg{inboxes: fixtureInboxes()[1:]})
	send(t, m, inboxesLoadedMsg{inboxes: fixtureInboxes()})
	send(t, m, emailsLoadedMsg{address: demoAddr, emails: meta})
	if strings.Contains(plain(m), "pass ") {
		t.Fatal("auth badge shown before the content is loaded")
	}
	press(t, m, "tab", "enter")
	if !svc.called("email demo@sandbox.test e1") || !svc.called("markRead demo@sandbox.test e1") {
		t.Fatalf("open did not fetch and mark read: %v", svc.calls)
	}
	open, ok := m.openEmail()
	if !ok || !open.HasContent || !open.IsRead || !strings.Contains(open.Text, "friendly") {
		t.Fatalf("open email = %+v", open)
	}
	if !strings.Contains(plain(m), "pass") {
		t.Fatal("auth badge missing once content is loaded")
	}
}

func TestProblemEmailShownLoudly(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "down", "down", "enter")
	if svc.called("email demo@sandbox.test e3") {
		t.Fatal("an email that cannot be opened was fetched")
	}
	view := plain(m)
	for _, want := range []string{"SERVER KEY MISMATCH", "CANNOT OPEN THIS EMAIL"} {
		if !strings.Contains(view, want) {
			t.Fatalf("view lacks %q", want)
		}
	}
}

func TestTabsAndRaw(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "enter")
	wants := []string{"Hello!", "X-Mailer:", "https://example.com/welcome", "report.pdf", "Subject: Welcome", "PASSED"}
	for i, want := range wants {
		press(t, m, fmt.Sprint(i+1))
		if m.message.tab != tab(i) {
			t.Fatalf("key %d: tab %v", i+1, m.message.tab)
		}
		if !strings.Contains(plain(m), want) {
			t.Fatalf("tab %d lacks %q:\n%s", i+1, want, plain(m))
		}
	}
	if !svc.called("raw demo@sandbox.test e1") {
		t.Fatal("raw tab did not fetch the source")
	}
	assertNoControls(t, plain(m))
}

func TestHTMLToggle(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "enter", "h")
	if !m.message.html || !strings.Contains(plain(m), "HTML* world") {
		t.Fatalf("h did not show the HTML part:\n%s", plain(m))
	}
	press(t, m, "h")
	if m.message.html || !strings.Contains(plain(m), "friendly") {
		t.Fatal("h did not go back to the text part")
	}
}

func TestHTMLOnlyBodyIsConverted(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	e := fixtureEmails()[0]
	e.Text = ""
	e.HTML = "<p>Only &#27;[2J <i>HTML</i></p>"
	send(t, m, emailsLoadedMsg{address: demoAddr, emails: []model.Email{e}})
	press(t, m, "tab", "enter")
	view := plain(m)
	if !strings.Contains(view, "Only") || !strings.Contains(view, "HTML converted") {
		t.Fatalf("HTML-only body not converted:\n%s", view)
	}
	assertNoControls(t, view)
}

func TestFilterActsOnEmailUnderCursor(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "/")
	typeText(t, m, "BOB")
	if len(m.messages.filtered) != 1 {
		t.Fatalf("filter kept %d emails", len(m.messages.filtered))
	}
	press(t, m, "enter")
	if m.messages.filtering {
		t.Fatal("enter did not leave the filter input")
	}
	press(t, m, "d", "y")
	if !svc.called("deleteEmail demo@sandbox.test e4") {
		t.Fatalf("delete did not act on the filtered email: %v", svc.calls)
	}
	if _, ok := m.current().email("e4"); ok {
		t.Fatal("deleted email still listed")
	}
	press(t, m, "esc")
	if m.messages.query != "" || len(m.messages.filtered) != 3 {
		t.Fatalf("esc did not clear the filter: %q %d", m.messages.query, len(m.messages.filtered))
	}
	press(t, m, "/")
	typeText(t, m, "zz")
	press(t, m, "backspace", "esc")
	if m.messages.filtering || m.messages.query != "" {
		t.Fatal("esc in the filter input did not cancel it")
	}
}

func TestDeleteNeedsConfirmation(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "d", "n")
	if svc.called("deleteEmail") {
		t.Fatal("deleted without confirmation")
	}
	press(t, m, "d", "esc")
	if svc.called("deleteEmail") || m.overlay != nil {
		t.Fatal("esc did not cancel")
	}
	press(t, m, "shift+tab", "d", "y")
	if !svc.called("deleteInbox demo@sandbox.test") {
		t.Fatalf("inbox not deleted: %v", svc.calls)
	}
	if e, _ := m.store.find(demoAddr); e != nil {
		t.Fatal("deleted inbox still listed")
	}
}

func TestDeleteFailureKeepsEverything(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	svc.fail = errors.New("boom")
	press(t, m, "d", "y")
	if e, _ := m.store.find(demoAddr); e == nil {
		t.Fatal("inbox dropped although deletion failed")
	}
	if !strings.Contains(plain(m), "boom") {
		t.Fatal("error not shown")
	}
}

func TestMarkUnreadIsLocal(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "end", "u")
	e, _ := m.messages.selected()
	if e.IsRead {
		t.Fatal("u did not mark unread")
	}
	if !strings.Contains(plain(m), "locally") {
		t.Fatal("status does not say unread is local")
	}
	// A resync from the server (which says read) keeps the local mark.
	send(t, m, emailsLoadedMsg{address: demoAddr, emails: fixtureEmails()})
	if e, _ := m.current().email("e4"); e.IsRead {
		t.Fatal("resync lost the local unread mark")
	}
	press(t, m, "u")
	if !svc.called("markRead demo@sandbox.test e4") {
		t.Fatal("u on an unread email did not mark it read on the service")
	}
}

func TestCopyUsesOSC52(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	msgs := press(t, m, "y")
	if !containsMsg(msgs, demoAddr) {
		t.Fatalf("y did not copy the address: %v", msgs)
	}
	press(t, m, "tab", "enter", "tab", "3", "down")
	msgs = press(t, m, "y")
	if !containsMsg(msgs, "mailto:alice@example.com") {
		t.Fatalf("y in links did not copy the link: %v", msgs)
	}
}

func containsMsg(msgs []tea.Msg, text string) bool {
	for _, msg := range msgs {
		if fmt.Sprint(msg) == text {
			return true
		}
	}
	return false
}

func TestOpenLinkOnlySafeSchemes(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "enter", "tab", "3", "o")
	if !svc.called("open https://example.com/welcome") {
		t.Fatalf("o did not open the link: %v", svc.calls)
	}
	press(t, m, "down", "down", "o")
	if svc.called("open javascript") {
		t.Fatal("a javascript: link was opened")
	}
	if !strings.Contains(plain(m), "only http, https and mailto") {
		t.Fatal("refusal not explained")
	}
}

func TestSaveAttachmentNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	m, _ := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "enter", "tab", "4")
	for i := 0; i < 2; i++ {
		press(t, m, "s", "ctrl+u")
		typeText(t, m, dir)
		press(t, m, "enter")
		if m.overlay != nil {
			t.Fatalf("save prompt still open: %s", plain(m))
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
	m, _ := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "enter", "tab", "5", "s", "ctrl+u")
	typeText(t, m, dir)
	press(t, m, "enter")
	data, err := os.ReadFile(filepath.Join(dir, "Welcome to the sandbox.eml"))
	if err != nil || !strings.HasPrefix(string(data), "From: alice") {
		t.Fatalf("raw not saved: %q %v", data, err)
	}
}

func TestSaveErrorKeepsPrompt(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "enter", "tab", "4", "s", "ctrl+u")
	typeText(t, m, "/nonexistent/dir")
	press(t, m, "enter")
	p, ok := m.overlay.(*prompt)
	if !ok || p.input.String() != "/nonexistent/dir" || !strings.Contains(plain(m), "no such file") {
		t.Fatalf("error lost the prompt: %v\n%s", m.overlay, plain(m))
	}
}

func TestCreateInboxForm(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	press(t, m, "n", "ctrl+u")
	typeText(t, m, "5s")
	press(t, m, "enter")
	if svc.called("create") || !strings.Contains(plain(m), "must be between 1m and 168h") {
		t.Fatalf("bad TTL accepted:\n%s", plain(m))
	}
	press(t, m, "ctrl+u")
	typeText(t, m, "2h")
	press(t, m, "tab")
	typeText(t, m, "me@sandbox.test")
	press(t, m, "tab", "space", "space", "enter")
	if !svc.called("create 2h0m0s me@sandbox.test plain") {
		t.Fatalf("create call: %v", svc.calls)
	}
	if m.overlay != nil || m.current().info.EmailAddress != "me@sandbox.test" {
		t.Fatal("created inbox not selected")
	}
}

func TestCreateInboxErrorKeepsForm(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	svc.fail = errors.New("server says no")
	press(t, m, "n", "enter")
	f, ok := m.overlay.(*createForm)
	if !ok || f.busy || !strings.Contains(plain(m), "server says no") {
		t.Fatalf("error not shown in the form:\n%s", plain(m))
	}
	press(t, m, "esc")
	if m.overlay != nil {
		t.Fatal("esc did not close the form")
	}
}

func TestExportAndImport(t *testing.T) {
	dir := t.TempDir()
	m, svc := newTestModel(t, 140, 40, true)
	path := filepath.Join(dir, "demo.json")
	press(t, m, "e", "ctrl+u")
	typeText(t, m, path)
	press(t, m, "enter")
	if !svc.called("export demo@sandbox.test "+path) || m.overlay != nil {
		t.Fatalf("export: %v", svc.calls)
	}
	// Exporting again to the same path refuses to overwrite.
	press(t, m, "e", "ctrl+u")
	typeText(t, m, path)
	press(t, m, "enter")
	if !strings.Contains(plain(m), "already exists") {
		t.Fatal("existing file not protected")
	}
	press(t, m, "esc", "i")
	typeText(t, m, filepath.Join(dir, "missing.json"))
	press(t, m, "enter")
	if p, ok := m.overlay.(*prompt); !ok || !strings.Contains(p.err, "no such file") {
		t.Fatalf("import error not shown: %v", m.overlay)
	}
	press(t, m, "ctrl+u")
	typeText(t, m, path)
	press(t, m, "enter")
	if m.overlay != nil || m.current().info.EmailAddress != "imported@sandbox.test" {
		t.Fatal("imported inbox not selected")
	}
}

func TestResyncAndLiveMailFlagged(t *testing.T) {
	m, svc := newTestModel(t, 140, 40, true)
	svc.addEmail(demoAddr, model.Email{ID: "e9", From: "new@example.com", Subject: "Fresh", ReceivedAt: testNow})
	press(t, m, "r")
	if !m.current().fresh["e9"] {
		t.Fatal("new email not flagged")
	}
	if !strings.Contains(plain(m), "NEW") {
		t.Fatal("NEW flag not shown")
	}
	send(t, m, newEmailMsg{address: demoAddr, email: model.Email{ID: "e10", Subject: "Pushed", ReceivedAt: testNow.Add(time.Second)}})
	if first, _ := m.messages.selected(); first.ID != "e10" && m.messages.entry.emails[0].ID != "e10" {
		t.Fatal("live email not first")
	}
}

func TestHelpAndQuit(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	press(t, m, "?")
	if _, ok := m.overlay.(*helpScreen); !ok || !strings.Contains(plain(m), "auth report") {
		t.Fatal("? did not show the full help")
	}
	press(t, m, "x")
	if m.overlay != nil {
		t.Fatal("help did not close")
	}
	for _, k := range []string{"q", "ctrl+c"} {
		msgs := press(t, m, k)
		if len(msgs) == 0 {
			t.Fatalf("%s did not quit", k)
		}
		if _, ok := msgs[0].(tea.QuitMsg); !ok {
			t.Fatalf("%s gave %T", k, msgs[0])
		}
	}
	press(t, m, "n")
	if msgs := press(t, m, "ctrl+c"); len(msgs) == 0 {
		t.Fatal("ctrl+c does not quit from a form")
	}
}

func TestMessagesAndTicks(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	now := testNow
	m.sh.clock = func() time.Time { return now }
	send(t, m, statusMsg{text: "saved x", level: levelSuccess})
	if !strings.Contains(plain(m), "saved x") {
		t.Fatal("status message not shown")
	}
	now = now.Add(10 * time.Second)
	send(t, m, tickMsg(now))
	if strings.Contains(plain(m), "saved x") {
		t.Fatal("status message did not expire")
	}
	if !strings.Contains(plain(m), "59m02s") {
		t.Fatal("countdown did not advance")
	}
	send(t, m, connStateMsg{kind: connReconnecting, delay: 5 * time.Second, attempt: 2})
	if !strings.Contains(plain(m), "reconnecting in 5s, attempt 2") {
		t.Fatal("reconnecting state not shown")
	}
	send(t, m, connStateMsg{kind: connLive})
	if !strings.Contains(plain(m), "live stream") {
		t.Fatal("live state not shown")
	}
	send(t, m, connStateMsg{kind: connOffline, err: "server unreachable"})
	if !strings.Contains(plain(m), "offline: server unreachable") {
		t.Fatal("offline state not shown")
	}
	send(t, m, tea.BackgroundColorMsg{})
	send(t, m, tea.PasteMsg{Content: "x"})
}

func TestBackgroundPicksTheme(t *testing.T) {
	m := newModel(options{tick: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }})
	next, _ := m.Update(tea.BackgroundColorMsg{Color: lightColor{}})
	if next.(Model).sh.theme.Dark {
		t.Fatal("light background gave the dark theme")
	}
}

type lightColor struct{}

func (lightColor) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

func TestResizeChangesLayout(t *testing.T) {
	m, _ := newTestModel(t, 200, 50, true)
	for _, c := range []struct {
		w    int
		mode layoutMode
	}{{200, layoutWide}, {120, layoutWide}, {119, layoutMedium}, {80, layoutMedium}, {79, layoutNarrow}, {40, layoutNarrow}} {
		send(t, m, tea.WindowSizeMsg{Width: c.w, Height: 30})
		if m.lay.mode != c.mode {
			t.Fatalf("width %d: mode %v", c.w, m.lay.mode)
		}
		for i, line := range strings.Split(plain(m), "\n") {
			if w := lipglossWidth(line); w > c.w {
				t.Fatalf("width %d: line %d is %d wide", c.w, i, w)
			}
		}
	}
}

func TestMouse(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	l := m.lay
	// Click the second inbox (two lines per inbox, below the border).
	send(t, m, tea.MouseClickMsg{X: l.inboxes.x + 2, Y: l.inboxes.y + 1 + inboxRowHeight, Button: tea.MouseLeft})
	if m.current().info.EmailAddress != plainAddr {
		t.Fatalf("click selected %s", m.current().info.EmailAddress)
	}
	send(t, m, tea.MouseClickMsg{X: l.inboxes.x + 2, Y: l.inboxes.y + 1, Button: tea.MouseLeft})
	send(t, m, tea.MouseClickMsg{X: l.messages.x + 3, Y: l.messages.y + 2, Button: tea.MouseLeft})
	if e, _ := m.messages.selected(); e.ID != "e2" || m.focus != paneMessages {
		t.Fatalf("click on a message selected %s", e.ID)
	}
	send(t, m, tea.MouseClickMsg{X: l.messages.x + 3, Y: l.messages.y + 2, Button: tea.MouseLeft})
	if m.message.id != "e2" {
		t.Fatal("clicking the selected message did not open it")
	}
	send(t, m, tea.MouseWheelMsg{X: l.messages.x + 3, Y: l.messages.y + 2, Button: tea.MouseWheelDown})
	if e, _ := m.messages.selected(); e.ID != "e4" {
		t.Fatalf("wheel moved to %s", e.ID)
	}
	send(t, m, tea.MouseWheelMsg{X: l.message.x + 3, Y: l.message.y + 10, Button: tea.MouseWheelDown})
}

func TestHostileMailNeverReachesTerminal(t *testing.T) {
	for _, size := range [][2]int{{70, 24}, {100, 30}, {160, 45}} {
		m, _ := newTestModel(t, size[0], size[1], true)
		press(t, m, "tab", "down", "enter")
		for _, k := range []string{"1", "2", "3", "4", "5", "6", "h"} {
			press(t, m, k)
			view := plain(m)
			assertNoControls(t, view)
			assertNoControls(t, m.View().WindowTitle)
		}
	}
}
