package mail

import (
	tea "charm.land/bubbletea/v2"

	"sandview/internal/desktop"
	"sandview/model"
	"sandview/tui/ui"
)

// openHTML writes the HTML part of m, as a desktop.BrowserPage (remote
// content blocked), to the screen's private temporary directory and opens
// it in the browser.
func (c commands) openHTML(m model.Email) tea.Cmd {
	name := desktop.SafeName(m.Subject, "message") + ".html"
	return func() tea.Msg {
		fail := func(err error) tea.Msg {
			return ui.StatusMsg{Text: "open the HTML part: " + err.Error(), Level: ui.LevelError}
		}
		page, err := desktop.BrowserPage(m.HTML)
		if err != nil {
			return fail(err)
		}
		path, err := c.temp.Write(name, []byte(page))
		if err != nil {
			return fail(err)
		}
		if err := c.open(c.ctx, path); err != nil {
			return fail(err)
		}
		return ui.StatusMsg{Text: "opened the HTML part in the browser, remote content blocked: " + path, Level: ui.LevelSuccess}
	}
}

// Close removes the files the screen wrote to open them with other
// programs (HTML parts, attachments); the program calls it as it ends.
func (s *Screen) Close() error { return s.cmds.temp.Remove() }
