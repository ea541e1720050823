package mail

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"sandview/model"
	"sandview/model/search"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// The columns of a message row, in cells. Every column but the subject
// has a fixed width whatever the row holds, so the columns of all rows
// line up: marked and unread flags, the NEW badge, the sender, in a
// list of mail for other addresses (a catch-all) the recipient, the subject, then (when the row is wide
// enough) attachments and the auth badge, then the age.
const (
	flagsColumn = 3 // "✓● "
	newColumn   = 4 // "NEW "
	attColumn   = 7 // " +99att": the count is never flush with the subject
	attCompact  = 4 // " +99", in rows narrower than attRowWidth
	badgeColumn = 5 // " pass"
	ageColumn   = 7
	// The sender and the recipient take a share of the room the fixed
	// columns leave, between these widths; the subject takes the rest.
	nameColumnMin = 6
	nameColumnMax = 24
	// Rows at least this wide show the NEW badge, the auth badge and
	// the attachments count (a narrower row leaves the subject the room:
	// new mail is unread); rows at least attRowWidth wide say "att".
	badgeRowWidth = 44
	attRowWidth   = 64
	// Rows at least this wide show the recipient in a list of mail for
	// other addresses (listsForeignMail).
	toRowWidth = 56
	// unknownMark stands in the attachments and auth columns of an email
	// whose content is not loaded yet: neither "none" nor a verdict.
	unknownMark = "…"
)

// rowColumns are the widths of a row's columns at a width.
type rowColumns struct {
	from, to, subject int  // to is 0 where the recipient is not shown
	att               int  // the attachments column (0: not shown)
	fresh, badge      bool // the NEW badge and the auth badge are shown
}

// rowNeeds are the optional columns the rows of a list need: the
// recipient (a list holding mail for other addresses), the NEW
// badge (some mail arrived while the inbox was open), the attachments
// (some mail has them). A column none of the rows needs gives its room to
// the subject.
type rowNeeds struct{ to, fresh, att bool }

// columnsFor lays out a row of width cells with the optional columns
// need asks for that the width holds. The subject gets what the fixed
// columns leave after the sender and the recipient took their share: a
// fifth each with the recipient, a third without, never more than
// nameColumnMax; so the subject is the widest column, and the names
// shrink first as the row narrows.
func columnsFor(width int, need rowNeeds) rowColumns {
	c := rowColumns{badge: width >= badgeRowWidth}
	c.fresh = need.fresh && c.badge
	switch {
	case need.att && width >= attRowWidth:
		c.att = attColumn
	case need.att && c.badge:
		c.att = attCompact
	}
	fixed := flagsColumn + 1 + ageColumn
	names := 1
	if need.to && width >= toRowWidth {
		names = 2
		fixed++
	}
	if c.badge {
		fixed += badgeColumn
	}
	if c.fresh {
		fixed += newColumn
	}
	fixed += c.att
	room := max(width-fixed, 0)
	name := ui.Clamp(room/(2*names+1), nameColumnMin, nameColumnMax)
	c.from = name
	if names == 2 {
		c.to = name
	}
	c.subject = max(room-names*name, 0)
	return c
}

// listsForeignMail reports whether the scope holds mail for another
// address than its inbox's own: then the rows show each mail's
// recipient. A mail's envelope, when the server sent it, says whom it was
// delivered for, so any client sees a catch-all's mail as such (one that
// did not make the catch-all too: --url after inbox attach, a session of
// serve). Without an envelope only the catch-all this client knows of
// (ui.Settings.CatchAll) is asked, by the To header: in another inbox a To
// naming someone else is a Bcc or a mailing list, not mail for others.
func (l *rowPainter) listsForeignMail() bool {
	for i, m := range l.scope.emails {
		owner := l.scope.owner(i)
		if owner == nil {
			continue
		}
		address := owner.info.EmailAddress
		switch {
		case m.Envelope != nil:
			if len(m.Envelope.To) > 0 && !slices.ContainsFunc(m.Envelope.To, func(to string) bool { return names(to, address) }) {
				return true
			}
		case l.catchAll != "" && strings.EqualFold(address, l.catchAll) && len(m.To) > 0 && !sentTo(m, address):
			return true
		}
	}
	return false
}

// rowNeeds are the optional columns the listed emails need. A list of
// one inbox without a search asks the inbox's fresh set, not each row.
func (l *rowPainter) rowNeeds() rowNeeds {
	need := rowNeeds{to: l.showTo}
	for _, pos := range l.filtered {
		if len(l.scope.emails[pos].Attachments) > 0 {
			need.att = true
			break
		}
	}
	if e := l.scope.entry; e != nil && len(l.filtered) == len(l.scope.emails) {
		for id := range e.fresh {
			if _, ok := e.index[id]; ok {
				need.fresh = true
				break
			}
		}
		return need
	}
	for _, pos := range l.filtered {
		if l.scope.owner(pos).fresh[l.scope.emails[pos].ID] {
			need.fresh = true
			break
		}
	}
	return need
}

// rows renders the visible rows, or a note when there are none; e is the
// selected inbox, loading whether the emails searched are still being
// listed (a match may yet arrive).
func (l *rowPainter) rows(width int, e *inboxEntry, loading bool) []string {
	st := l.ctx.Styles()
	if len(l.filtered) > 0 {
		query := l.find.query.String()
		return l.list.Render(func(i int, selected bool) []string {
			pos := l.filtered[i]
			return []string{l.cachedRow(l.scope.emails[pos], l.scope.owner(pos), selected, width, query)}
		})
	}
	switch {
	case (len(l.scope.emails) > 0 || l.find.active() && l.find.err == "") && loading:
		return []string{st.Muted.Render("No matches yet — still loading…")}
	case len(l.scope.emails) > 0 || l.find.active() && l.find.err == "":
		return []string{st.Muted.Render(search.NoMatches)}
	case e == nil:
		return []string{st.Muted.Render("No mail in any inbox yet.")}
	case e.loading:
		return []string{st.Muted.Render(l.spinner.View() + " Loading and decrypting emails…")}
	case e.loadErr != "":
		return append(ui.WrapStyled(st.FieldError.Render, "Could not load emails: "+e.loadErr, width),
			st.Muted.Render(fmt.Sprintf("Press %s to retry.", ui.KeyName(l.ctx.Keys.Resync))))
	case e.gone != "":
		return ui.WrapStyled(st.FieldError.Render, "This inbox is gone from the server: no more mail will come ("+e.gone+").", width)
	}
	out := []string{st.Muted.Render("No mail yet.")}
	if hint := l.hint(e); hint != "" {
		out = append(out, ui.WrapStyled(st.Banner.Render, hint, width)...)
	}
	return out
}

// rowStyles are the styles of one row's parts.
type rowStyles struct {
	flags, fresh, from, subject, extra, age lipgloss.Style
	badge                                   lipgloss.Style
	match                                   lipgloss.Style
}

// row renders one email as a line of exactly width cells: its columns,
// the query's matches in the sender and subject marked.
func (l *rowPainter) row(m model.Email, owner *inboxEntry, selected bool, width int) string {
	st := l.ctx.Styles()
	cols := columnsFor(width, l.needs)
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
	if cols.fresh {
		sb.WriteString(rs.fresh.Render(fresh) + rs.subject.Render(strings.Repeat(" ", newColumn-len(fresh))))
	}
	sb.WriteString(ui.Highlighted(from, q.Highlights(search.FieldFrom, from), cols.from, rs.from, rs.match))
	sb.WriteString(rs.from.Render(" "))
	if cols.to > 0 {
		sb.WriteString(recipientColumn(m, owner, q, cols.to, rs))
	}
	sb.WriteString(ui.Highlighted(subject, q.Highlights(search.FieldSubject, subject), cols.subject, rs.subject, rs.match))
	if cols.att > 0 {
		att := ""
		switch n := len(m.Attachments); {
		case !m.HasContent && m.Problem == "":
			att = unknownMark
		case n > 0 && cols.att == attCompact:
			att = fmt.Sprintf("+%d", min(n, 99))
		case n > 0:
			att = fmt.Sprintf("+%datt", min(n, 99))
		}
		sb.WriteString(rs.extra.Render(ui.FitRight(att, cols.att)))
	}
	if cols.badge {
		sb.WriteString(rs.extra.Render(" ") + rs.badge.Render(ui.Fit(badge, badgeColumn-1)))
	}
	sb.WriteString(rs.age.Render(ui.FitRight(ui.RelativeTime(m.ReceivedAt, l.ctx.Now), ageColumn)))
	return sb.String()
}

// recipient is whom m was sent to (model.Email.ShownTo): its first
// recipient other than the inbox's own address (mail the catch-all took
// for someone else), else the first one; envelope recipients, where the
// To header names none, labelled as such.
func recipient(m model.Email, owner *inboxEntry) string {
	to, fromEnvelope := m.ShownTo()
	label := ""
	if fromEnvelope {
		label = " " + model.EnvelopeLabel
	}
	for _, r := range to {
		if owner == nil || !names(r, owner.info.EmailAddress) {
			return r + label
		}
	}
	if len(to) > 0 {
		return to[0] + label
	}
	return ""
}

// recipientColumn is the recipient of m in width cells and a space, what
// the search q matches in it marked: to: and free text in the To
// header's recipients, rcpt: in the envelope's.
func recipientColumn(m model.Email, owner *inboxEntry, q search.Query, width int, rs rowStyles) string {
	to := recipient(m, owner)
	addr, labelled := strings.CutSuffix(to, " "+model.EnvelopeLabel)
	field := search.FieldTo
	if labelled {
		field = search.FieldRcpt
	}
	marks := q.Highlights(field, addr)
	if len(marks) == 0 && !labelled && slices.ContainsFunc(m.EnvelopeTo(), func(r string) bool { return names(addr, r) }) {
		marks = q.Highlights(search.FieldRcpt, addr) // the To address is an envelope recipient too
	}
	if len(marks) > 0 && (!labelled || termtext.Width(to) <= width) {
		return ui.Highlighted(to, marks, width, rs.extra, rs.match) + rs.extra.Render(" ")
	}
	return rs.extra.Render(recipientCell(to, width) + " ")
}

// shortEnvelopeLabel stands for model.EnvelopeLabel in a narrow column.
const shortEnvelopeLabel = " (env)"

// recipientCell is a recipient in width cells: an address cut to leave
// room for the envelope label after it (shortened in a narrow column),
// when the column holds a few characters of the address besides.
func recipientCell(to string, width int) string {
	label := " " + model.EnvelopeLabel
	addr, labelled := strings.CutSuffix(to, label)
	if !labelled || termtext.Width(to) <= width {
		return ui.Fit(to, width)
	}
	if width < len(label)+4 {
		label = shortEnvelopeLabel
	}
	if width >= len(label)+3 {
		return ui.Fit(ansi.Truncate(addr, width-len(label), "…")+label, width)
	}
	return ui.Fit(to, width)
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
