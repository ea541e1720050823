package ui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// Help shows the full help of a key map in columns, with notes under it;
// any key closes it.
type Help struct {
	ctx   *Context
	title string
	keys  help.KeyMap
	notes []string
}

// NewHelp returns the help of keys.
func NewHelp(ctx *Context, title string, keys help.KeyMap, notes ...string) *Help {
	return &Help{ctx: ctx, title: title, keys: keys, notes: notes}
}

// HandleKey closes the help, whatever the key.
func (h *Help) HandleKey(tea.KeyPressMsg) (tea.Cmd, bool) { return nil, true }

// Paste does nothing.
func (h *Help) Paste(string) {}

// View draws the key columns and the notes.
func (h *Help) View(width, _ int) string {
	st := h.ctx.Styles()
	hm := h.ctx.Help()
	hm.SetWidth(width - 4)
	full := hm.FullHelpView(h.keys.FullHelp())
	width = min(width, max(lipgloss.Width(full), 62)+4)
	lines := []string{st.DialogTitle.Render(h.title), ""}
	lines = append(lines, strings.Split(full, "\n")...)
	lines = append(lines, "")
	for _, note := range append(h.notes, "Press any key to close.") {
		lines = append(lines, st.Muted.Render(note))
	}
	return Box(h.ctx, lines, width)
}

// ShortHelp is the key line while the help is open.
func (h *Help) ShortHelp() []key.Binding { return h.keys.ShortHelp() }

// FullHelp is the help shown.
func (h *Help) FullHelp() [][]key.Binding { return h.keys.FullHelp() }
