package ui

import (
	"strings"

	"sandview/model/termtext"

	"github.com/charmbracelet/x/ansi"
)

// DialogWidth is the widest a form, prompt or confirmation gets.
const DialogWidth = 76

// Box draws the bordered box of a dialog, width cells wide outside, with
// each line fitted inside.
func Box(ctx *Context, lines []string, width int) string {
	inner := max(width-4, 1)
	fitted := make([]string, len(lines))
	for i, l := range lines {
		fitted[i] = Fit(l, inner)
	}
	return ctx.Styles().Dialog.Width(width).Render(strings.Join(fitted, "\n"))
}

// Place draws box over screen with its top-left corner at x, y.
func Place(screen, box string, x, y int) string {
	lines := strings.Split(screen, "\n")
	for i, b := range strings.Split(box, "\n") {
		row := y + i
		if row >= len(lines) {
			break
		}
		line := lines[row]
		// A wide character cut by either edge of the box becomes spaces.
		left := ansi.Truncate(line, x, "")
		if pad := x - termtext.Width(left); pad > 0 {
			left += strings.Repeat(" ", pad)
		}
		end := x + termtext.Width(b)
		right := ansi.TruncateLeft(line, end, "")
		if pad := termtext.Width(line) - end - termtext.Width(right); pad > 0 {
			right = strings.Repeat(" ", pad) + right
		}
		lines[row] = left + ansi.ResetStyle + b + ansi.ResetStyle + right
	}
	return strings.Join(lines, "\n")
}
