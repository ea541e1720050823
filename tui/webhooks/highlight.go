package webhooks

import (
	"sandview/theme"
	"sandview/tui/ui"
)

// highlighted is sanitized JSON text with its rendering in the theme's
// colours, made once per theme (rendering is too slow to repeat per frame).
type highlighted struct {
	text     string
	rendered string
	dark     bool
	done     bool
}

func newHighlighted(text string) *highlighted { return &highlighted{text: text} }

// empty reports whether there is no text.
func (h *highlighted) empty() bool { return h == nil || h.text == "" }

// lines is the highlighted text wrapped to width, each line styled alone.
func (h *highlighted) lines(t theme.Theme, width int) []string {
	if !h.done || h.dark != t.Dark {
		h.rendered, h.dark, h.done = t.HighlightJSON(h.text), t.Dark, true
	}
	return ui.Wrap(h.rendered, width)
}
