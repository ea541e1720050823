package keys

import "charm.land/bubbles/v2/key"

// ListKeyMap holds the bindings that move the cursor of a list (or scroll
// a text) by a row, half a page, a page or to either end.
type ListKeyMap struct {
	Up           key.Binding
	Down         key.Binding
	PageUp       key.Binding
	PageDown     key.Binding
	HalfPageUp   key.Binding
	HalfPageDown key.Binding
	Top          key.Binding
	Bottom       key.Binding
}

// DefaultList returns the movement bindings every list and text shares.
// Space is not among them: it marks messages.
func DefaultList() ListKeyMap {
	return ListKeyMap{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:       key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		HalfPageUp:   key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up")),
		HalfPageDown: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down")),
		Top:          key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
		Bottom:       key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),
	}
}

// ShortHelp lists the movement bindings.
func (k ListKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfPageUp, k.HalfPageDown, k.Top, k.Bottom}
}

// FullHelp lists the movement bindings in one column.
func (k ListKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
