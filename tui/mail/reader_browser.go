package mail

import (
	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/ui"
)

// openHTML writes the HTML part of m, as a desktop.BrowserPage (remote
// content blocked), to the screen's private directory and opens it in the
// browser; the file is removed once the browser has had it.
func (c commands) openHTML(m model.Email) tea.Cmd {
	return func() tea.Msg {
		path, err := c.temp.OpenHTML(c.ctx, m.Subject, m.HTML, c.open)
		if err != nil {
			return ui.StatusMsg{Text: "open the HTML part: " + err.Error(), Level: ui.LevelError}
		}
		return ui.StatusMsg{Text: "opened the HTML part in the browser, remote content blocked: " + path, Level: ui.LevelSuccess}
	}
}

// Close removes the files the screen wrote to open them with other
// programs (HTML parts, attachments); the program calls it as it ends.
func (s *Screen) Close() error { return s.cmds.temp.Remove() }
