package ui

import (
	"strings"

	"sandview/model/termtext"

	"github.com/charmbracelet/x/ansi"
)

// focusMarker starts the title of the focused pane, so that the focus
// shows in a capture without colours or attributes.
const focusMarker = "▶ "

// Frame draws a bordered pane of exactly width x height cells with the
// title in the top border (the focused pane's marked with focusMarker);
// body lines are fitted to the inner width and the inner height.
func Frame(ctx *Context, title string, focused bool, width, height int, body []string) string {
	if width < 4 || height < 2 {
		return Blank(width, height)
	}
	st := ctx.Styles()
	edge, titleStyle := st.Pane, st.Title
	if focused {
		edge, titleStyle = st.PaneFocused, st.TitleFocused
		title = focusMarker + title
	}
	b := ctx.Theme.Border(focused)
	inner := width - 2
	title = ansi.Truncate(title, inner-3, "…")
	fill := max(inner-3-termtext.Width(title), 0)
	var sb strings.Builder
	if inner < 3 { // no room for a title
		sb.WriteString(edge.Render(b.TopLeft + strings.Repeat(b.Top, inner) + b.TopRight))
	} else {
		sb.WriteString(edge.Render(b.TopLeft+b.Top) + " " + titleStyle.Render(title) + " " + edge.Render(strings.Repeat(b.Top, fill)+b.TopRight))
	}
	left, right := edge.Render(b.Left), edge.Render(b.Right)
	for i := 0; i < height-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		sb.WriteString("\n" + left + Fit(line, inner) + right)
	}
	sb.WriteString("\n" + edge.Render(b.BottomLeft+strings.Repeat(b.Bottom, inner)+b.BottomRight))
	return sb.String()
}

// Blank is an empty area of width x height cells.
func Blank(width, height int) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	line := strings.Repeat(" ", width)
	lines := make([]string, height)
	for i := range lines {
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}
