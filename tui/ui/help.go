package ui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// HelpDialog shows the full help of a key map in columns, with notes
// under it; any key closes it.
type HelpDialog struct {
	ctx   *Context
	title string
	keys  help.KeyMap
	notes []string
}

// NewHelpDialog returns the help of keys.
func NewHelpDialog(ctx *Context, title string, keys help.KeyMap, notes ...string) *HelpDialog {
	return &HelpDialog{ctx: ctx, title: title, keys: keys, notes: notes}
}

// HandleKey closes the help, whatever the key.
func (h *HelpDialog) HandleKey(tea.KeyPressMsg) (tea.Cmd, bool) { return nil, true }

// Paste does nothing.
func (h *HelpDialog) Paste(string) {}

// View draws the key columns and the notes.
func (h *HelpDialog) View(width, _ int) string {
	st := h.ctx.Styles()
	hm := h.ctx.KeyHelp()
	hm.SetWidth(width - 4)
	full := hm.FullHelpView(h.keys.FullHelp())
	width = min(width, max(BlockWidth(full), 62)+4)
	lines := []string{st.DialogTitle.Render(h.title), ""}
	lines = append(lines, strings.Split(full, "\n")...)
	lines = append(lines, "")
	for _, note := range append(h.notes, "Press any key to close.") {
		lines = append(lines, st.Muted.Render(note))
	}
	return Box(h.ctx, lines, width)
}

// ShortHelp is the key line while the help is open.
func (h *HelpDialog) ShortHelp() []key.Binding { return h.keys.ShortHelp() }

// FullHelp is the help shown.
func (h *HelpDialog) FullHelp() [][]key.Binding { return h.keys.FullHelp() }
