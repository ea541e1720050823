package ui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// Component is one pane of a screen. It owns its state, its keys and its
// rendering, reads what it shares with the rest of the program from a
// *Context, and can be built, driven and drawn alone.
type Component interface {
	// ShortHelp and FullHelp list the pane's own keys.
	help.KeyMap
	// SetSize sets the outer size; View then draws exactly width x height
	// cells.
	SetSize(width, height int)
	// SetFocus tells the pane whether it has the keyboard.
	SetFocus(focused bool)
	// HandleKey reacts to a key. handled is false when the key is not the
	// pane's, so its screen may act on it.
	HandleKey(msg tea.KeyPressMsg) (cmd tea.Cmd, handled bool)
	View() string
}

// Screen fills the body of the terminal (the mail screen, the webhooks
// screen): it lays its panes out, routes keys to the focused one and takes
// the results and events addressed to it, even while another screen shows.
type Screen interface {
	help.KeyMap
	SetSize(width, height int)
	View() string
	// HandleKey routes a key to the screen's own keys, then to its focused
	// pane; handled is false when neither wants it.
	HandleKey(msg tea.KeyPressMsg) (cmd tea.Cmd, handled bool)
	// CapturesInput reports whether a text input of the screen has the
	// keyboard: global keys are then typed, not acted on.
	CapturesInput() bool
	// Update applies a result or an event; ok is false for messages that
	// are not the screen's.
	Update(msg tea.Msg) (cmd tea.Cmd, ok bool)
	// HandleMouse reacts to a click or a wheel turn, at coordinates
	// relative to the screen's top-left corner.
	HandleMouse(msg tea.MouseMsg) tea.Cmd
	// Paste inserts pasted text into the input that has the keyboard.
	Paste(text string)
}

// Dialog is a modal box drawn over the screen; while it is open it has the
// keyboard.
type Dialog interface {
	// ShortHelp is the key line shown while the dialog is open.
	help.KeyMap
	// HandleKey reacts to a key; done is true when the dialog closes.
	HandleKey(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool)
	Paste(text string)
	// View draws the box at most width cells wide and height lines tall.
	View(width, height int) string
}

// FocusRing is the panes of a screen in the order tab moves through them,
// and the one that has the keyboard.
type FocusRing struct {
	panes []Component
	at    int
}

// NewFocusRing returns a ring of panes, the first one focused.
func NewFocusRing(panes ...Component) FocusRing {
	r := FocusRing{panes: panes}
	r.Focus(0)
	return r
}

// Focus gives the keyboard to pane i, wrapping around the ring, and tells
// every pane whether it has it.
func (r *FocusRing) Focus(i int) {
	n := len(r.panes)
	r.at = (i%n + n) % n
	for j, p := range r.panes {
		p.SetFocus(j == r.at)
	}
}

// At is the index of the focused pane.
func (r *FocusRing) At() int { return r.at }

// Focused is the pane that has the keyboard.
func (r *FocusRing) Focused() Component { return r.panes[r.at] }
