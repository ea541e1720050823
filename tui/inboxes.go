package tui

import (
	"fmt"
)

// inboxRowHeight is the number of lines one inbox takes in the list.
const inboxRowHeight = 2

// inboxList is the pane listing every inbox.
type inboxList struct {
	sh     *shared
	store  *store
	cursor int
	offset int
	width  int
	height int
}

func newInboxList(sh *shared, st *store) *inboxList {
	return &inboxList{sh: sh, store: st}
}

// SetSize sets the outer size of the pane.
func (l *inboxList) SetSize(width, height int) {
	l.width, l.height = width, height
	l.scrollToCursor()
}

// selected returns the entry under the cursor, if any.
func (l *inboxList) selected() *inboxEntry {
	if l.cursor < 0 || l.cursor >= len(l.store.entries) {
		return nil
	}
	return l.store.entries[l.cursor]
}

// selectAddress moves the cursor to address.
func (l *inboxList) selectAddress(address string) {
	if _, i := l.store.find(address); i >= 0 {
		l.cursor = i
		l.scrollToCursor()
	}
}

// move moves the cursor by delta rows and reports whether it changed.
func (l *inboxList) move(delta int) bool {
	old := l.cursor
	l.cursor = clampInt(l.cursor+delta, 0, len(l.store.entries)-1)
	l.scrollToCursor()
	return l.cursor != old
}

// clamp keeps the cursor valid after the list changed.
func (l *inboxList) clamp() {
	l.cursor = clampInt(l.cursor, 0, len(l.store.entries)-1)
	l.scrollToCursor()
}

func (l *inboxList) visibleRows() int {
	rows := (l.height - 2) / inboxRowHeight
	if rows < 1 {
		rows = 1
	}
	return rows
}

func (l *inboxList) scrollToCursor() {
	rows := l.visibleRows()
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+rows {
		l.offset = l.cursor - rows + 1
	}
	l.offset = clampInt(l.offset, 0, len(l.store.entries)-rows)
}

// rowAt maps a line inside the pane body to an inbox index (-1 if none).
func (l *inboxList) rowAt(bodyLine int) int {
	if bodyLine < 0 {
		return -1
	}
	i := l.offset + bodyLine/inboxRowHeight
	if i >= len(l.store.entries) {
		return -1
	}
	return i
}

// View renders the pane.
func (l *inboxList) View(focused bool) string {
	st := l.sh.styles()
	inner := l.width - 2
	var body []string
	if len(l.store.entries) == 0 {
		body = append(body, st.Muted.Render("No inboxes yet."), st.Muted.Render("Press n to create one"), st.Muted.Render("or i to import one."))
	}
	end := min(l.offset+l.visibleRows(), len(l.store.entries))
	for i := l.offset; i < end; i++ {
		body = append(body, l.row(l.store.entries[i], i == l.cursor, focused, inner)...)
	}
	title := fmt.Sprintf("Inboxes (%d) · unread/total", len(l.store.entries))
	return frame(l.sh, title, focused, l.width, l.height, body)
}

// row renders the two lines of one inbox.
func (l *inboxList) row(e *inboxEntry, selected, focused bool, width int) []string {
	st := l.sh.styles()
	now := l.sh.now
	expired := e.info.IsExpired(now)
	kind := "plain"
	if e.info.Encrypted {
		kind = "enc"
	}
	left := "expired"
	if !expired {
		left = countdown(e.info.TimeLeft(now)) + " left"
	}
	counts := fmt.Sprintf("%d/%d", e.unread, len(e.emails))
	if !e.loaded {
		counts = "…"
	}
	line1 := " " + e.info.EmailAddress
	line2 := fmt.Sprintf("  %s · %s · %s", counts, kind, left)
	if selected {
		style := st.SelectedBlurred
		if focused {
			style = st.Selected
		}
		return []string{style.Render(fit(line1, width)), style.Render(fit(line2, width))}
	}
	if expired {
		return []string{st.Dim.Render(fit(line1, width)), st.Dim.Render(fit(line2, width))}
	}
	addr := st.Normal.Render(line1)
	if e.unread > 0 {
		addr = st.Unread.Render(line1)
	}
	kindStyle := st.Plain
	if e.info.Encrypted {
		kindStyle = st.Encrypted
	}
	countStyle := st.Muted
	if e.unread > 0 {
		countStyle = st.Unread
	}
	return []string{addr, "  " + countStyle.Render(counts) + st.Muted.Render(" · ") + kindStyle.Render(kind) + st.Muted.Render(" · "+left)}
}
