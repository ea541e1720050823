package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// fit truncates s (which may hold styling) to width cells and pads it with
// spaces to exactly width.
func fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	w := ansi.StringWidth(s)
	if w > width {
		s = ansi.Truncate(s, width, "…")
		w = ansi.StringWidth(s)
	}
	if w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// fitRight right-aligns s in width cells.
func fitRight(s string, width int) string {
	w := ansi.StringWidth(s)
	if w >= width {
		return fit(s, width)
	}
	return strings.Repeat(" ", width-w) + s
}

// wrap wraps plain text to width cells, breaking long words, and returns
// its lines.
func wrap(text string, width int) []string {
	if width < 1 {
		width = 1
	}
	text = strings.ReplaceAll(text, "\t", "    ")
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		wrapped := ansi.Hardwrap(ansi.Wordwrap(line, width, " -"), width, true)
		out = append(out, strings.Split(wrapped, "\n")...)
	}
	return out
}

// window returns the lines [offset, offset+height) of lines, padded with
// empty lines to height.
func window(lines []string, offset, height int) []string {
	out := make([]string, 0, height)
	for i := offset; i < offset+height; i++ {
		if i >= 0 && i < len(lines) {
			out = append(out, lines[i])
		} else {
			out = append(out, "")
		}
	}
	return out
}

// clampInt keeps v within [lo, hi] (hi wins when hi < lo).
func clampInt(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}
