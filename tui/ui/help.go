package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
	"sandview/model/termtext"
)

// helpColumnGap is the space between two columns of the help.
const helpColumnGap = 3

// HelpDialog shows the groups of a key map in as many columns as the
// width holds, each group whole, with notes under them; it scrolls when
// taller than the screen, and any other key closes it.
type HelpDialog struct {
	pager
	groups []keys.Group
	notes  []string
}

// NewHelpDialog returns the help of the groups.
func NewHelpDialog(ctx *Context, title string, groups []keys.Group, notes ...string) *HelpDialog {
	h := &HelpDialog{groups: groups, notes: notes}
	h.pager = newPager(ctx, title, 160, h.layout)
	return h
}

// HandleKey scrolls, or closes on any other key.
func (h *HelpDialog) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) { return nil, h.handleKey(msg) }

// Paste does nothing.
func (h *HelpDialog) Paste(string) {}

// View draws the help.
func (h *HelpDialog) View(width, height int) string { return h.view(width, height) }

// ShortHelp is the key line while the help is open.
func (h *HelpDialog) ShortHelp() []key.Binding {
	return []key.Binding{h.keys.Down, h.keys.Up, h.keys.PageDown}
}

// FullHelp is the help shown.
func (h *HelpDialog) FullHelp() [][]key.Binding { return keys.Columns(h.groups) }

// layout lays the groups out in columns for width cells, then the notes.
func (h *HelpDialog) layout(width int) []string {
	blocks := make([][]string, len(h.groups))
	for i, g := range h.groups {
		blocks[i] = h.block(g, width)
	}
	lines := flowColumns(blocks, width)
	st := h.ctx.Styles()
	for _, note := range h.notes {
		lines = append(lines, "")
		lines = append(lines, WrapStyled(st.Muted.Render, note, width)...)
	}
	return lines
}

// block renders one group: its title, then a line per binding, keys in a
// column as wide as the widest, descriptions cut to fit width.
func (h *HelpDialog) block(g keys.Group, width int) []string {
	hs := h.ctx.Theme.Help()
	keyW := 0
	for _, b := range g.Bindings {
		keyW = max(keyW, termtext.Width(b.Help().Key))
	}
	out := []string{h.ctx.Styles().Label.Render(g.Title)}
	for _, b := range g.Bindings {
		k := Fit(b.Help().Key, keyW)
		line := hs.FullKey.Render(k) + " " + hs.FullDesc.Render(b.Help().Desc)
		if termtext.Width(line) > width {
			line = Fit(line, width)
		}
		out = append(out, line)
	}
	return out
}

// flowColumns places blocks, in order and each whole, in the most columns
// whose widths add up to at most width, the blocks going down a column
// before the next one starts and the columns as even in height as that
// allows. One column when even two do not fit.
func flowColumns(blocks [][]string, width int) []string {
	for n := len(blocks); n > 1; n-- {
		if cols, ok := splitColumns(blocks, n, width); ok {
			return joinColumns(cols)
		}
	}
	var lines []string
	for i, b := range blocks {
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, b...)
	}
	return lines
}

// column is a column of the help: its lines and width.
type column struct {
	lines []string
	width int
}

// splitColumns fills n columns with the blocks, each column taking blocks
// until it reaches the height that evens them out; ok is false when the
// columns are wider than width together.
func splitColumns(blocks [][]string, n, width int) ([]column, bool) {
	total := 0
	for _, b := range blocks {
		total += len(b) + 1
	}
	target := (total + n - 1) / n
	cols := make([]column, 0, n)
	var cur column
	for i, b := range blocks {
		if len(cur.lines) > 0 && len(cur.lines)+len(b) > target && len(cols) < n-1 {
			cols = append(cols, cur)
			cur = column{}
		}
		if len(cur.lines) > 0 {
			cur.lines = append(cur.lines, "")
		}
		cur.lines = append(cur.lines, b...)
		for _, l := range b {
			cur.width = max(cur.width, termtext.Width(l))
		}
		if i == len(blocks)-1 {
			cols = append(cols, cur)
		}
	}
	sum := helpColumnGap * (len(cols) - 1)
	for _, c := range cols {
		sum += c.width
	}
	return cols, sum <= width && len(cols) == n
}

// joinColumns puts the columns side by side.
func joinColumns(cols []column) []string {
	height := 0
	for _, c := range cols {
		height = max(height, len(c.lines))
	}
	gap := strings.Repeat(" ", helpColumnGap)
	lines := make([]string, height)
	for y := range height {
		var sb strings.Builder
		for i, c := range cols {
			if i > 0 {
				sb.WriteString(gap)
			}
			line := ""
			if y < len(c.lines) {
				line = c.lines[y]
			}
			if i < len(cols)-1 {
				line = Fit(line, c.width)
			}
			sb.WriteString(line)
		}
		lines[y] = strings.TrimRight(sb.String(), " ")
	}
	return lines
}
