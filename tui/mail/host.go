package mail

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/desktop"
	"sandview/tui/ui"
)

// readerHost is what the reader asks of the mail screen (reader.Host):
// the emails the state holds, and the calls and desktop actions of the
// screen's commands.
type readerHost struct {
	ctx   *ui.Context
	cmds  commands
	state *mailState
	acts  *actions
}

// Email is email id of inbox address as the state holds it.
func (h readerHost) Email(address, id string) (model.Email, bool) {
	if e, _ := h.state.find(address); e != nil {
		return e.email(id)
	}
	return model.Email{}, false
}

// LoadRaw fetches the raw source; the result comes back as rawLoadedMsg.
func (h readerHost) LoadRaw(address, id string) tea.Cmd { return h.cmds.loadRaw(address, id) }

// Raw fetches the raw source now, within the request timeout.
func (h readerHost) Raw(ctx context.Context, address, id string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return h.cmds.svc.Raw(ctx, address, id)
}

// Run runs a program (Settings.Run, else os/exec).
func (h readerHost) Run(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, error) {
	return h.cmds.run(ctx, stdin, name, args...)
}

// Copy puts text on the clipboard.
func (h readerHost) Copy(text, what string) tea.Cmd { return h.cmds.copyText(text, what) }

// OpenLink opens a link with the system opener.
func (h readerHost) OpenLink(link, copyKey string) tea.Cmd { return h.cmds.openLink(link, copyKey) }

// OpenAttachment opens an attachment with the system opener.
func (h readerHost) OpenAttachment(a model.Attachment, saveKey string) tea.Cmd {
	return h.cmds.openAttachment(a, saveKey)
}

// OpenHTML writes the HTML part of m, as a desktop.BrowserPage (remote
// content blocked), to the screen's private directory and opens it in the
// browser; the file is removed once the browser has had it.
func (h readerHost) OpenHTML(m model.Email) tea.Cmd {
	c := h.cmds
	return func() tea.Msg {
		path, err := c.temp.OpenHTML(c.ctx, m.Subject, m.HTML, c.open)
		if err != nil {
			return ui.StatusMsg{Text: "open the HTML part: " + err.Error(), Level: ui.LevelError}
		}
		return ui.StatusMsg{Text: "opened the HTML part in the browser, remote content blocked: " + path, Level: ui.LevelSuccess}
	}
}

// SaveAttachment asks for a directory (the one the save dialogs offer)
// and saves a there.
func (h readerHost) SaveAttachment(a model.Attachment) tea.Cmd {
	h.ctx.Open(h.cmds.saveDir.prompt(h.ctx, "Save attachment", "Directory to save "+desktop.SafeName(a.Filename, "attachment")+" in (an existing file is never overwritten).",
		func(dir string) tea.Cmd { return h.cmds.saveAttachment(a, dir) }))
	return nil
}

// SaveEmail asks where to save email m of inbox address as .eml.
func (h readerHost) SaveEmail(address string, m model.Email) tea.Cmd {
	e, _ := h.state.find(address)
	return h.acts.promptSaveEmails([]target{{entry: e, email: m}})
}

// AuthLines is the authentication report of m.
func (h readerHost) AuthLines(m model.Email, width int) []string {
	return authReportLines(h.ctx, m, width)
}
