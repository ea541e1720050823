package tui

import (
	"fmt"
	"strings"

	"sandview/model"
)

// messageList is the pane listing the emails of the selected inbox, newest
// first. It keeps a filtered index into the inbox's emails and renders only
// the visible rows.
type messageList struct {
	sh       *shared
	entry    *inboxEntry
	filtered []int // positions into entry.emails that match the filter
	cursor   int   // index into filtered
	offset   int
	width    int
	height   int

	curID     string // id of the email under the cursor, kept across list changes
	filter    field
	filtering bool   // the filter input has the keyboard
	query     string // the applied filter, lowercased
	smtpHint  string
	spinner   int
}

func newMessageList(sh *shared, smtpHint string) *messageList {
	return &messageList{sh: sh, smtpHint: smtpHint}
}

// SetSize sets the outer size of the pane.
func (l *messageList) SetSize(width, height int) {
	l.width, l.height = width, height
	l.scrollToCursor()
}

// setEntry shows another inbox; the filter is kept.
func (l *messageList) setEntry(e *inboxEntry) {
	if l.entry == e {
		return
	}
	l.entry = e
	l.cursor, l.offset = 0, 0
	l.refilter("")
}

// refresh rebuilds the filtered index after the emails changed, keeping
// the cursor on the same email when it is still listed.
func (l *messageList) refresh() {
	l.refilter(l.curID)
}

// setQuery applies a filter text.
func (l *messageList) setQuery(q string) {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == l.query {
		return
	}
	id := ""
	if m, ok := l.selected(); ok {
		id = m.ID
	}
	l.query = q
	l.refilter(id)
}

func (l *messageList) refilter(keepID string) {
	l.filtered = l.filtered[:0]
	if l.entry == nil {
		l.cursor, l.offset = 0, 0
		return
	}
	for i := range l.entry.emails {
		if l.query == "" || strings.Contains(l.entry.search[i], l.query) {
			l.filtered = append(l.filtered, i)
		}
	}
	if keepID != "" {
		if pos, ok := l.entry.index[keepID]; ok {
			for i, p := range l.filtered {
				if p == pos {
					l.cursor = i
					break
				}
			}
		}
	}
	l.cursor = clampInt(l.cursor, 0, len(l.filtered)-1)
	l.scrollToCursor()
}

// selected returns the email under the cursor, filtered or not.
func (l *messageList) selected() (model.Email, bool) {
	if l.entry == nil || l.cursor < 0 || l.cursor >= len(l.filtered) || l.filtered[l.cursor] >= len(l.entry.emails) {
		return model.Email{}, false
	}
	return l.entry.emails[l.filtered[l.cursor]], true
}

// move moves the cursor by delta rows.
func (l *messageList) move(delta int) {
	l.cursor = clampInt(l.cursor+delta, 0, len(l.filtered)-1)
	l.scrollToCursor()
}

// moveTo puts the cursor on a row.
func (l *messageList) moveTo(row int) {
	l.cursor = clampInt(row, 0, len(l.filtered)-1)
	l.scrollToCursor()
}

// headerLines is the number of body lines above the rows.
func (l *messageList) headerLines() int {
	if l.filtering || l.query != "" {
		return 1
	}
	return 0
}

func (l *messageList) visibleRows() int {
	return max(l.height-2-l.headerLines(), 1)
}

// page is the number of rows a page key moves.
func (l *messageList) page() int { return max(l.visibleRows()-1, 1) }

func (l *messageList) scrollToCursor() {
	rows := l.visibleRows()
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+rows {
		l.offset = l.cursor - rows + 1
	}
	l.offset = clampInt(l.offset, 0, len(l.filtered)-rows)
	if m, ok := l.selected(); ok {
		l.curID = m.ID
	}
}

// scroll moves the cursor by delta rows (mouse wheel).
func (l *messageList) scroll(delta int) {
	l.move(delta)
}

// rowAt maps a body line to a row index (-1 if none).
func (l *messageList) rowAt(bodyLine int) int {
	bodyLine -= l.headerLines()
	if bodyLine < 0 {
		return -1
	}
	i := l.offset + bodyLine
	if i >= len(l.filtered) {
		return -1
	}
	return i
}

// View renders the pane.
func (l *messageList) View(focused bool) string {
	st := l.sh.styles()
	inner := l.width - 2
	var body []string
	if l.filtering || l.query != "" {
		label := st.FilterPrompt.Render("/ ")
		if l.filtering {
			body = append(body, label+l.filter.view(l.sh, true, inner-3))
		} else {
			body = append(body, label+st.Value.Render(l.filter.String())+st.Muted.Render("  (esc clears)"))
		}
	}
	title := "Messages"
	switch {
	case l.entry == nil:
		body = append(body, st.Muted.Render("No inbox selected."))
	default:
		title = fmt.Sprintf("Messages %d/%d", len(l.filtered), len(l.entry.emails))
		if l.entry.loading {
			title = "Messages (loading…)"
		}
		body = append(body, l.rows(focused, inner)...)
	}
	return frame(l.sh, title, focused, l.width, l.height, body)
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// rows renders the visible rows, or a note when there are none.
func (l *messageList) rows(focused bool, width int) []string {
	st := l.sh.styles()
	e := l.entry
	if len(l.filtered) == 0 {
		switch {
		case e.loading:
			return []string{st.Muted.Render(spinnerFrames[l.spinner%len(spinnerFrames)] + " Loading and decrypting emails…")}
		case e.loadErr != "":
			return []string{st.FieldError.Render("Could not load emails: " + e.loadErr), st.Muted.Render("Press r to retry.")}
		case len(e.emails) > 0:
			return []string{st.Muted.Render("No email matches the filter.")}
		case l.smtpHint != "":
			return []string{st.Muted.Render("No mail yet."), st.Banner.Render(l.smtpHint)}
		}
		return []string{st.Muted.Render("No mail yet. Waiting for new mail…")}
	}
	end := min(l.offset+l.visibleRows(), len(l.filtered))
	out := make([]string, 0, end-l.offset)
	for i := l.offset; i < end; i++ {
		m := e.emails[l.filtered[i]]
		out = append(out, l.row(m, i == l.cursor, focused, width))
	}
	return out
}

// row renders one email as a line: unread marker, new flag, from,
// subject, attachment marker, auth badge, age.
func (l *messageList) row(m model.Email, selected, focused bool, width int) string {
	st := l.sh.styles()
	unread := "  "
	if !m.IsRead {
		unread = "● "
	}
	fresh := ""
	if l.entry.fresh[m.ID] {
		fresh = "NEW "
	}
	age := fitRight(relativeTime(m.ReceivedAt, l.sh.now), 6)
	att := ""
	if len(m.Attachments) > 0 {
		att = fmt.Sprintf(" +%datt", len(m.Attachments))
	}
	badge, badgeStyle := authBadge(st, m)
	if badge != "" {
		badge = " " + badge
	}
	fromW := clampInt(width/4, 8, 24)
	subjectW := width - 2 - len(fresh) - fromW - 1 - len(att) - len(badge) - len(age)
	subject := m.Subject
	if subject == "" {
		subject = "(no subject)"
	}
	if m.Problem != "" {
		subject = "⚠ " + strings.ToUpper(m.Problem)
	}
	from := fit(displayFrom(m.From), fromW) + " "
	subject = fit(subject, max(subjectW, 0))
	if selected {
		style := st.SelectedBlurred
		if focused {
			style = st.Selected
		}
		return style.Render(fit(unread+fresh+from+subject+att+badge+age, width))
	}
	subjectStyle, fromStyle := st.Normal, st.Normal
	if !m.IsRead {
		subjectStyle, fromStyle = st.Unread, st.Unread
	}
	if m.Problem != "" {
		subjectStyle = st.Problem
	}
	var sb strings.Builder
	sb.WriteString(st.Unread.Render(unread))
	if fresh != "" {
		sb.WriteString(st.New.Render(strings.TrimSpace(fresh)) + " ")
	}
	sb.WriteString(fromStyle.Render(from))
	sb.WriteString(subjectStyle.Render(subject))
	sb.WriteString(st.Muted.Render(att))
	if badge != "" {
		sb.WriteString(" " + badgeStyle.Render(strings.TrimSpace(badge)))
	}
	sb.WriteString(st.Muted.Render(age))
	return sb.String()
}

// displayFrom prefers the display name of an address.
func displayFrom(from string) string {
	if i := strings.Index(from, "<"); i > 0 {
		name := strings.Trim(strings.TrimSpace(from[:i]), `"`)
		if name != "" {
			return name
		}
	}
	return from
}
