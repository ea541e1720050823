package ui

import (
	"errors"
	"fmt"
	"strings"

	"sandview/model/search"
	"sandview/model/termtext"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Fit truncates s (which may hold styling) to width cells, ending it with
// "…", and pads it with spaces to exactly width, by termtext.Width.
func Fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	w := termtext.Width(s)
	if w > width {
		s = ansi.Truncate(s, width, "…")
		w = termtext.Width(s)
	}
	if w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// FitRight right-aligns s in width cells.
func FitRight(s string, width int) string {
	w := termtext.Width(s)
	if w >= width {
		return Fit(s, width)
	}
	return strings.Repeat(" ", width-w) + s
}

// BlockWidth is the width of the widest line of s.
func BlockWidth(s string) int {
	w := 0
	for _, line := range strings.Split(s, "\n") {
		w = max(w, termtext.Width(line))
	}
	return w
}

// WrapStyled wraps text to width and styles each line.
func WrapStyled(style func(...string) string, text string, width int) []string {
	lines := Wrap(text, width)
	for i, l := range lines {
		lines[i] = style(l)
	}
	return lines
}

// FitLines fits every line to width (see Fit).
func FitLines(lines []string, width int) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = Fit(l, width)
	}
	return out
}

// Window returns the lines [offset, offset+height) of lines, padded with
// empty lines to height.
func Window(lines []string, offset, height int) []string {
	out := make([]string, 0, max(height, 0))
	for i := offset; i < offset+height; i++ {
		if i >= 0 && i < len(lines) {
			out = append(out, lines[i])
		} else {
			out = append(out, "")
		}
	}
	return out
}

// Clamp keeps v within [lo, hi] (hi wins when hi < lo).
func Clamp(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}

// KeyName is how a hint names the keys of a binding ("n", "↑/k"): hints
// take it from the binding so they follow the key map.
func KeyName(b key.Binding) string { return b.Help().Key }

// ErrorText is the message of err for the status bar, on one line, with
// joined per-email failures summarised.
func ErrorText(err error) string {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		if n := len(joined.Unwrap()); n > 1 {
			return fmt.Sprintf("%d emails could not be opened (first: %v)", n, joined.Unwrap()[0])
		}
	}
	return termtext.SanitizeLine(err.Error())
}

// Highlighted draws text in exactly width cells in style base, the byte
// ranges marks of it in style mark.
func Highlighted(text string, marks []search.Range, width int, base, mark lipgloss.Style) string {
	if width <= 0 {
		return ""
	}
	if len(marks) == 0 {
		return base.Render(Fit(text, width))
	}
	var sb strings.Builder
	at := 0
	for _, r := range marks {
		sb.WriteString(base.Render(text[at:r.Start]))
		sb.WriteString(mark.Render(text[r.Start:r.End]))
		at = r.End
	}
	sb.WriteString(base.Render(text[at:]))
	line := sb.String()
	if w := termtext.Width(line); w < width {
		return line + base.Render(strings.Repeat(" ", width-w))
	}
	return Fit(line, width)
}
