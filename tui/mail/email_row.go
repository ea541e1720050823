package mail

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"sandview/model"
	"sandview/model/search"
	"sandview/tui/ui"
)

// The columns of a message row, in cells. Every column but the subject
// has a fixed width whatever the row holds, so the columns of all rows
// line up: marked and unread flags, the NEW badge, the sender, in a
// catch-all list the recipient, the subject, then (when the row is wide
// enough) attachments and the auth badge, then the age.
const (
	flagsColumn = 3 // "✓● "
	newColumn   = 4 // "NEW "
	attColumn   = 6 // " +2att"
	badgeColumn = 5 // " pass"
	ageColumn   = 7
	// Rows at least this wide show the auth badge, and attachments.
	badgeRowWidth = 44
	attRowWidth   = 64
	// Rows at least this wide show the recipient in a catch-all list.
	toRowWidth = 72
)

// rowColumns are the widths of a row's columns at a width.
type rowColumns struct {
	from, to, subject int  // to is 0 where the recipient is not shown
	badge, att        bool // the auth badge and the attachments are shown
}

// columnsFor lays out a row of width cells; withTo asks for the recipient
// column (a list that holds mail for many addresses: the catch-all's).
func columnsFor(width int, withTo bool) rowColumns {
	c := rowColumns{from: ui.Clamp(width/4, 6, 24), badge: width >= badgeRowWidth, att: width >= attRowWidth}
	fixed := flagsColumn + newColumn + c.from + 1 + ageColumn
	if withTo && width >= toRowWidth {
		c.to = ui.Clamp(width/4, 6, 24)
		fixed += c.to + 1
	}
	if c.badge {
		fixed += badgeColumn
	}
	if c.att {
		fixed += attColumn
	}
	c.subject = max(width-fixed, 0)
	return c
}

// rowStyles are the styles of one row's parts.
type rowStyles struct {
	flags, fresh, from, subject, extra, age lipgloss.Style
	badge                                   lipgloss.Style
	match                                   lipgloss.Style
}

// row renders one email as a line of exactly width cells: its columns,
// the query's matches in the sender and subject marked.
func (l *emailList) row(m model.Email, owner *inboxEntry, selected bool, width int) string {
	st := l.ctx.Styles()
	cols := columnsFor(width, l.showTo)
	rs := rowStyles{flags: st.Unread, fresh: st.New, from: st.Normal, subject: st.Normal, extra: st.Muted, age: st.Muted, match: st.Match}
	if !m.IsRead {
		rs.from, rs.subject = st.Unread, st.Unread
	}
	if m.Problem != "" {
		rs.subject = st.Problem
	}
	badge, badgeStyle := authBadge(st, m)
	rs.badge = badgeStyle
	marked := owner.marked[m.ID]
	if marked {
		rs.flags = st.Marked
	}
	if selected {
		sel := st.SelectedBlurred
		if l.focused {
			sel = st.Selected
		}
		rs = rowStyles{flags: sel, fresh: sel, from: sel, subject: sel, extra: sel, age: sel, badge: sel, match: st.Match.Inherit(sel)}
	}
	flags := []rune("   ")
	if marked {
		flags[0] = '✓'
	}
	if !m.IsRead {
		flags[1] = '●'
	}
	fresh := ""
	if owner.fresh[m.ID] {
		fresh = "NEW"
	}
	subject := m.Subject
	if subject == "" {
		subject = "(no subject)"
	}
	if m.Problem != "" {
		subject = "⚠ " + strings.ToUpper(m.Problem)
	}
	from := displayFrom(m.From)
	q := l.find.query
	var sb strings.Builder
	sb.WriteString(rs.flags.Render(string(flags)))
	sb.WriteString(rs.fresh.Render(fresh) + rs.subject.Render(strings.Repeat(" ", newColumn-len(fresh))))
	sb.WriteString(highlighted(from, q.Highlights(search.FieldFrom, from), cols.from, rs.from, rs.match))
	sb.WriteString(rs.from.Render(" "))
	if cols.to > 0 {
		sb.WriteString(rs.extra.Render(ui.Fit(recipient(m, owner), cols.to) + " "))
	}
	sb.WriteString(highlighted(subject, q.Highlights(search.FieldSubject, subject), cols.subject, rs.subject, rs.match))
	if cols.att {
		att := ""
		if n := len(m.Attachments); n > 0 {
			att = fmt.Sprintf("+%datt", min(n, 99))
		}
		sb.WriteString(rs.extra.Render(ui.FitRight(att, attColumn)))
	}
	if cols.badge {
		sb.WriteString(rs.extra.Render(" ") + rs.badge.Render(ui.Fit(badge, badgeColumn-1)))
	}
	sb.WriteString(rs.age.Render(ui.FitRight(ui.RelativeTime(m.ReceivedAt, l.ctx.Now), ageColumn)))
	return sb.String()
}

// highlighted draws text in exactly width cells in style base, the byte
// ranges marks of it in style mark.
func highlighted(text string, marks []search.Range, width int, base, mark lipgloss.Style) string {
	if width <= 0 {
		return ""
	}
	if len(marks) == 0 {
		return base.Render(ui.Fit(text, width))
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
	if w := model.TextWidth(line); w < width {
		return line + base.Render(strings.Repeat(" ", width-w))
	}
	return ui.Fit(line, width)
}

// recipient is whom m was sent to: its first recipient other than the
// inbox's own address (mail the catch-all took for someone else), else the
// first one.
func recipient(m model.Email, owner *inboxEntry) string {
	for _, to := range m.To {
		if owner == nil || !names(to, owner.info.EmailAddress) {
			return to
		}
	}
	if len(m.To) > 0 {
		return m.To[0]
	}
	return ""
}

// sentTo reports whether address is among m's recipients.
func sentTo(m model.Email, address string) bool { return m.SentTo(address) }

// names reports whether a recipient, which may carry a display name
// ("Name <address>"), is address.
func names(recipient, address string) bool { return model.NamesAddress(recipient, address) }

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
