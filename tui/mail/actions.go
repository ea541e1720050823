package mail

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/internal/desktop"
	"sandview/tui/ui"
)

// actions are what several panes do to the selected inbox and to an email:
// copy the address, export the inbox, delete it or an email (after asking),
// mark an email read or unread.
type actions struct {
	ctx     *ui.Context
	cmds    commands
	current func() *inboxEntry // the inbox selected in the inbox list
}

// inboxKey handles the keys that act on the selected inbox from every
// pane: copy its address, export it.
func (a *actions) inboxKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := a.ctx.Keys
	switch {
	case key.Matches(msg, k.Copy):
		return a.copyAddress(), true
	case key.Matches(msg, k.Export):
		a.promptExport()
		return nil, true
	}
	return nil, false
}

// copyAddress copies the selected inbox's address (OSC 52).
func (a *actions) copyAddress() tea.Cmd {
	e := a.current()
	if e == nil {
		a.ctx.Flash("no inbox selected", ui.LevelWarn)
		return nil
	}
	a.ctx.Flash("copied "+e.info.EmailAddress+" (OSC 52)", ui.LevelSuccess)
	return tea.SetClipboard(e.info.EmailAddress)
}

// promptExport asks where to export the selected inbox.
func (a *actions) promptExport() {
	e := a.current()
	if e == nil {
		a.ctx.Flash("no inbox selected", ui.LevelWarn)
		return
	}
	address := e.info.EmailAddress
	a.ctx.Open(ui.NewPrompt(a.ctx, "Export "+address, "File to write (JSON, 0600). It holds the inbox's secret key: keep it safe.",
		desktop.SafeName(address, "inbox")+".json", func(path string) tea.Cmd { return a.cmds.exportInbox(address, path) }))
}

// confirmDeleteInbox asks before deleting the selected inbox.
func (a *actions) confirmDeleteInbox() {
	e := a.current()
	if e == nil {
		return
	}
	address := e.info.EmailAddress
	a.ctx.Open(ui.NewConfirm(a.ctx, fmt.Sprintf("Delete the inbox %s and all its %d emails on the server?", address, len(e.emails)),
		func() tea.Cmd { return a.cmds.deleteInbox(address) }))
}

// confirmDeleteEmail asks before deleting the email id of inbox e.
func (a *actions) confirmDeleteEmail(e *inboxEntry, id string) {
	if e == nil {
		return
	}
	em, ok := e.email(id)
	if !ok {
		return
	}
	subject := em.Subject
	if subject == "" {
		subject = "(no subject)"
	}
	address := e.info.EmailAddress
	a.ctx.Open(ui.NewConfirm(a.ctx, fmt.Sprintf("Delete the email %q from %s?", subject, em.From),
		func() tea.Cmd { return a.cmds.deleteEmail(address, id) }))
}

// toggleRead marks an email of inbox e read (on the service) or unread
// (locally: the service has no unread flag).
func (a *actions) toggleRead(e *inboxEntry, id string) tea.Cmd {
	if e == nil {
		return nil
	}
	em, ok := e.email(id)
	if !ok {
		return nil
	}
	if em.IsRead {
		e.setRead(id, false)
		a.ctx.Flash("marked unread locally (the service only records read)", ui.LevelInfo)
		return nil
	}
	e.setRead(id, true)
	return a.cmds.markRead(e.info.EmailAddress, id)
}
