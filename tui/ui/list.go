package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
)

// WheelLines is how many lines one turn of the mouse wheel scrolls.
const WheelLines = 3

// List is the cursor and scroll state of a list of rows drawn rowHeight
// lines each in a window of a given height. It is the one list of the UI:
// every list moves, pages, scrolls and maps clicks by the same rules, and
// draws only the rows in view.
type List struct {
	n         int // number of rows
	cursor    int
	offset    int // first row in view
	rowHeight int
	height    int // lines available for rows
}

// NewList returns an empty list of rows rowHeight lines tall.
func NewList(rowHeight int) List { return List{rowHeight: max(rowHeight, 1)} }

// SetLen sets the number of rows, keeping the cursor on a row.
func (l *List) SetLen(n int) {
	l.n = max(n, 0)
	l.Select(l.cursor)
}

// Len is the number of rows.
func (l *List) Len() int { return l.n }

// SetHeight sets the lines available for rows, keeping the cursor in view.
func (l *List) SetHeight(lines int) {
	l.height = lines
	l.Select(l.cursor)
}

// Visible is the rows in view: from up to, not including, to.
func (l *List) Visible() (from, to int) { return l.offset, min(l.offset+l.Rows(), l.n) }

// Cursor is the index of the selected row (0 when the list is empty).
func (l *List) Cursor() int { return l.cursor }

// Rows is how many rows fit in the window (at least one).
func (l *List) Rows() int { return max(l.height/l.rowHeight, 1) }

// Page is how many rows a page key moves: a window less one row, so the
// row at the edge stays in view.
func (l *List) Page() int { return max(l.Rows()-1, 1) }

// Select puts the cursor on row i (clamped) and scrolls it into view; it
// reports whether the cursor moved.
func (l *List) Select(i int) bool {
	old := l.cursor
	l.cursor = Clamp(i, 0, l.n-1)
	rows := l.Rows()
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+rows {
		l.offset = l.cursor - rows + 1
	}
	l.offset = Clamp(l.offset, 0, l.n-rows)
	return l.cursor != old
}

// Move moves the cursor by delta rows; it reports whether it moved.
func (l *List) Move(delta int) bool { return l.Select(l.cursor + delta) }

// Wheel moves the cursor by a turn of the wheel (lines, negative upwards):
// as many rows as those lines hold, at least one.
func (l *List) Wheel(lines int) bool {
	switch rows := lines / l.rowHeight; {
	case rows != 0:
		return l.Move(rows)
	case lines > 0:
		return l.Move(1)
	case lines < 0:
		return l.Move(-1)
	}
	return false
}

// InsertFirst records a row put before all others: the cursor stays on
// the row it was on, or on the new first row when it was on the first.
func (l *List) InsertFirst() {
	l.n++
	if l.cursor > 0 {
		l.cursor++
		l.offset++
	}
	l.Select(l.cursor)
}

// HandleKey moves the cursor for the movement keys; handled is false for
// other keys, moved says whether the cursor changed row.
func (l *List) HandleKey(k keys.ListKeyMap, msg tea.KeyPressMsg) (moved, handled bool) {
	switch {
	case key.Matches(msg, k.Up):
		return l.Move(-1), true
	case key.Matches(msg, k.Down):
		return l.Move(1), true
	case key.Matches(msg, k.PageUp):
		return l.Move(-l.Page()), true
	case key.Matches(msg, k.PageDown):
		return l.Move(l.Page()), true
	case key.Matches(msg, k.HalfPageUp):
		return l.Move(-max(l.Rows()/2, 1)), true
	case key.Matches(msg, k.HalfPageDown):
		return l.Move(max(l.Rows()/2, 1)), true
	case key.Matches(msg, k.Top):
		return l.Select(0), true
	case key.Matches(msg, k.Bottom):
		return l.Select(l.n - 1), true
	}
	return false, false
}

// RowAt maps a line of the window (0 = its first line) to a row index, or
// -1 when no row is drawn there.
func (l *List) RowAt(line int) int {
	if line < 0 || line >= l.Rows()*l.rowHeight {
		return -1
	}
	i := l.offset + line/l.rowHeight
	if i >= l.n {
		return -1
	}
	return i
}

// Render draws the rows in view with row, which returns the rowHeight
// lines of row i.
func (l *List) Render(row func(i int, selected bool) []string) []string {
	from, end := l.Visible()
	out := make([]string, 0, (end-from)*l.rowHeight)
	for i := from; i < end; i++ {
		out = append(out, row(i, i == l.cursor)...)
	}
	return out
}

// WheelDelta is how many lines a wheel event scrolls (negative upwards);
// 0 for other buttons.
func WheelDelta(m tea.Mouse) int {
	switch m.Button {
	case tea.MouseWheelUp:
		return -WheelLines
	case tea.MouseWheelDown:
		return WheelLines
	}
	return 0
}
