package mail

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/tui/desktop"
	"sandview/tui/ui"
)

// actions are what several panes do to the selected inbox and to emails:
// copy the address, export the inbox, delete it, and the actions on one
// or many emails (bulk.go).
type actions struct {
	ctx     *ui.Context
	cmds    commands
	state   *mailState
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
		return a.promptExport(), true
	}
	return nil, false
}

// copyAddress copies the selected inbox's address.
func (a *actions) copyAddress() tea.Cmd {
	e := a.current()
	if e == nil {
		a.ctx.Flash("no inbox selected", ui.LevelWarn)
		return nil
	}
	return a.cmds.copyText(e.info.EmailAddress, e.info.EmailAddress)
}

// promptExport asks where to export the selected inbox.
func (a *actions) promptExport() tea.Cmd {
	e := a.current()
	if e == nil {
		a.ctx.Flash("no inbox selected", ui.LevelWarn)
		return nil
	}
	address := e.info.EmailAddress
	if remote := a.cmds.remote(); remote != nil {
		file := desktop.SafeName(address, "inbox") + ".json"
		return remote.RunThere(a.ctx, "export it", remote.Shell+" inbox export "+address+" > "+file)
	}
	a.ctx.Open(ui.NewPrompt(a.ctx, "Export "+address, "File to write (JSON, 0600). It holds the inbox's secret key: keep it safe.",
		desktop.SafeName(address, "inbox")+".json", func(path string) tea.Cmd { return a.cmds.exportInbox(address, path) }))
	return nil
}

// inboxMailWords is what deleting an inbox of n emails takes with it:
// "" (none), " and its 1 email", " and all its 3 emails".
func inboxMailWords(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " and its 1 email"
	}
	return " and all its " + ui.Plural(n, "email", "emails")
}

// confirmDeleteInbox asks before deleting the selected inbox, saying that
// the address itself goes with its mail. While emails are marked it
// refuses: d was meant for them, in the message list.
func (a *actions) confirmDeleteInbox() {
	e := a.current()
	if e == nil {
		return
	}
	if n := a.state.markedCount(); n > 0 {
		a.ctx.Flash(fmt.Sprintf("%s marked: %s in the message list deletes them; esc there clears the marks", ui.Plural(n, "email is", "emails are"), ui.KeyName(a.ctx.Keys.Delete)), ui.LevelWarn)
		return
	}
	address := e.info.EmailAddress
	a.ctx.Open(ui.NewConfirm(a.ctx, fmt.Sprintf("Delete the inbox %s itself%s on the server? The address goes, not only its mail.", address, inboxMailWords(len(e.emails))),
		func() tea.Cmd { return a.cmds.deleteInbox(address) }))
}
