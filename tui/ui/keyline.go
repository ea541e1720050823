package ui

import (
	"strings"

	"sandview/model/termtext"

	"charm.land/bubbles/v2/key"
)

// KeyLine draws the key line under the status bar in exactly width cells:
// the bindings in order, as many as fit, and always the last one (the key
// to the full help), so that what is shown is never cut mid-word.
func KeyLine(ctx *Context, bindings []key.Binding, width int) string {
	var shown []key.Binding
	for _, b := range bindings {
		if b.Enabled() && b.Help().Key != "" {
			shown = append(shown, b)
		}
	}
	if len(shown) == 0 {
		return Fit("", width)
	}
	hs := ctx.Theme.Help()
	sep := hs.ShortSeparator.Render(" • ")
	item := func(b key.Binding) string {
		return hs.ShortKey.Render(b.Help().Key) + " " + hs.ShortDesc.Render(b.Help().Desc)
	}
	last := item(shown[len(shown)-1])
	room := width - 1 - termtext.Width(last) // a space on the left
	var parts []string
	used := 0
	for _, b := range shown[:len(shown)-1] {
		it := item(b)
		w := termtext.Width(it) + termtext.Width(sep)
		if used+w > room {
			break
		}
		parts = append(parts, it)
		used += w
	}
	parts = append(parts, last)
	return Fit(" "+strings.Join(parts, sep), width)
}
