package mail

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
	"sandview/model"
	"sandview/tui/ui"
)

// emailList is the pane listing the emails of the selected inbox, newest
// first, under an optional filter on sender and subject. It keeps a
// filtered index into the inbox's emails and draws only the rows in view;
// actions apply to the email under the cursor, filtered or not.
type emailList struct {
	ctx      *ui.Context
	acts     *actions
	entry    *inboxEntry
	filtered []int   // positions into entry.emails that match the filter
	list     ui.List // over filtered
	width    int
	height   int
	focused  bool

	curID     string // id of the email under the cursor, kept across list changes
	filter    ui.TextField
	filtering bool   // the filter input has the keyboard
	query     string // the applied filter, lowercased
	smtpHint  string
	spinner   spinner.Model
}

func newEmailList(ctx *ui.Context, acts *actions, smtpHint string) *emailList {
	return &emailList{
		ctx: ctx, acts: acts, smtpHint: smtpHint, list: ui.NewList(1),
		filter: ui.NewTextField(ctx.Edit, ""), spinner: spinner.New(spinner.WithSpinner(spinner.MiniDot)),
	}
}

// SetSize sets the outer size of the pane.
func (l *emailList) SetSize(width, height int) {
	l.width, l.height = width, height
	l.resize()
}

// resize gives the rows the lines under the filter line.
func (l *emailList) resize() {
	l.list.SetHeight(l.height - 2 - l.headerLines())
	l.remember()
}

// SetFocus tells the pane whether it has the keyboard.
func (l *emailList) SetFocus(focused bool) { l.focused = focused }

// CapturesInput reports whether the filter input has the keyboard.
func (l *emailList) CapturesInput() bool { return l.filtering }

// setEntry shows another inbox; the filter is kept.
func (l *emailList) setEntry(e *inboxEntry) {
	if l.entry == e {
		return
	}
	l.entry = e
	l.list = ui.NewList(1)
	l.resize()
	l.refilter("")
}

// refresh rebuilds the filtered index after the emails changed, keeping
// the cursor on the same email when it is still listed.
func (l *emailList) refresh() { l.refilter(l.curID) }

// setQuery applies a filter text.
func (l *emailList) setQuery(q string) {
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

func (l *emailList) refilter(keepID string) {
	l.filtered = l.filtered[:0]
	if l.entry != nil {
		for i := range l.entry.emails {
			if l.query == "" || strings.Contains(l.entry.search[i], l.query) {
				l.filtered = append(l.filtered, i)
			}
		}
	}
	l.list.SetLen(len(l.filtered))
	if pos, ok := l.positionOf(keepID); ok {
		l.list.Select(pos)
	}
	l.remember()
}

// positionOf is the row of the email id in the filtered list.
func (l *emailList) positionOf(id string) (int, bool) {
	if id == "" || l.entry == nil {
		return 0, false
	}
	if pos, ok := l.entry.index[id]; ok {
		for i, p := range l.filtered {
			if p == pos {
				return i, true
			}
		}
	}
	return 0, false
}

// remember notes the email under the cursor, to find it again after the
// list changes.
func (l *emailList) remember() {
	if m, ok := l.selected(); ok {
		l.curID = m.ID
	}
}

// selected returns the email under the cursor, filtered or not.
func (l *emailList) selected() (model.Email, bool) {
	c := l.list.Cursor()
	if l.entry == nil || c >= len(l.filtered) || l.filtered[c] >= len(l.entry.emails) {
		return model.Email{}, false
	}
	return l.entry.emails[l.filtered[c]], true
}

// headerLines is the number of body lines above the rows.
func (l *emailList) headerLines() int {
	if l.filtering || l.query != "" {
		return 1
	}
	return 0
}

// HandleKey edits the filter while it has the keyboard; otherwise it moves
// the cursor and acts on the email under it.
func (l *emailList) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if l.filtering {
		l.filterKey(msg)
		return nil, true
	}
	k := l.ctx.Keys
	if _, ok := l.list.HandleKey(k.ListKeyMap, msg); ok {
		l.remember()
		return nil, true
	}
	switch {
	case key.Matches(msg, k.Back) && l.query != "":
		l.setFilter("")
	case key.Matches(msg, k.Filter):
		if l.entry == nil {
			return nil, false
		}
		l.filtering = true
		l.filter = ui.NewTextField(l.ctx.Edit, l.filter.Value())
		l.resize()
	case key.Matches(msg, k.Delete):
		if e, ok := l.selected(); ok {
			l.acts.confirmDeleteEmail(l.entry, e.ID)
		}
	case key.Matches(msg, k.MarkUnread):
		if e, ok := l.selected(); ok {
			return l.acts.toggleRead(l.entry, e.ID), true
		}
	default:
		return l.acts.inboxKey(msg)
	}
	return nil, true
}

// filterKey edits the filter; the list follows as the user types.
func (l *emailList) filterKey(msg tea.KeyPressMsg) {
	p := keys.DefaultPrompt()
	switch {
	case key.Matches(msg, p.Accept):
		l.filtering = false
	case key.Matches(msg, p.Cancel):
		l.filtering = false
		l.setFilter("")
	default:
		l.filter.HandleKey(msg)
		l.setQuery(l.filter.Value())
	}
	l.resize()
}

// setFilter replaces the filter text.
func (l *emailList) setFilter(text string) {
	l.filter = ui.NewTextField(l.ctx.Edit, text)
	l.setQuery(text)
	l.resize()
}

// Paste types pasted text into the filter while it has the keyboard.
func (l *emailList) Paste(text string) {
	if l.filtering {
		l.filter.Insert(text)
		l.setQuery(l.filter.Value())
	}
}

// rowAt maps a line of the pane to a row (-1 if none).
func (l *emailList) rowAt(y int) int { return l.list.RowAt(y - 1 - l.headerLines()) }

// clickedRow puts the cursor on row i; it reports whether the row was
// already selected (a second click opens it).
func (l *emailList) clickedRow(i int) bool {
	if i == l.list.Cursor() {
		return true
	}
	l.list.Select(i)
	l.remember()
	return false
}

// wheel moves the cursor by a turn of the wheel.
func (l *emailList) wheel(lines int) {
	l.list.Wheel(lines)
	l.remember()
}

// spin advances the loading indicator.
func (l *emailList) spin(msg spinner.TickMsg) { l.spinner, _ = l.spinner.Update(msg) }

// View draws the pane.
func (l *emailList) View() string {
	st := l.ctx.Styles()
	inner := l.width - 2
	var body []string
	if l.headerLines() > 0 {
		label := st.FilterPrompt.Render("/ ")
		if l.filtering {
			body = append(body, label+l.filter.View(l.ctx, true, inner-3))
		} else {
			body = append(body, label+st.Value.Render(l.filter.Value())+st.Muted.Render(fmt.Sprintf("  (%s clears)", ui.KeyName(l.ctx.Keys.Back))))
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
		body = append(body, l.rows(inner)...)
	}
	return ui.Frame(l.ctx, title, l.focused, l.width, l.height, body)
}

// rows renders the visible rows, or a note when there are none.
func (l *emailList) rows(width int) []string {
	st := l.ctx.Styles()
	e := l.entry
	if len(l.filtered) == 0 {
		switch {
		case e.loading:
			return []string{st.Muted.Render(l.spinner.View() + " Loading and decrypting emails…")}
		case e.loadErr != "":
			return []string{st.FieldError.Render("Could not load emails: " + e.loadErr),
				st.Muted.Render(fmt.Sprintf("Press %s to retry.", ui.KeyName(l.ctx.Keys.Resync)))}
		case len(e.emails) > 0:
			return []string{st.Muted.Render("No email matches the filter.")}
		case l.smtpHint != "":
			return []string{st.Muted.Render("No mail yet."), st.Banner.Render(l.smtpHint)}
		}
		return []string{st.Muted.Render("No mail yet. Waiting for new mail…")}
	}
	return l.list.Render(func(i int, selected bool) []string {
		return []string{l.row(e.emails[l.filtered[i]], selected, width)}
	})
}

// row renders one email as a line: unread marker, new flag, from,
// subject, attachment marker, auth badge, age.
func (l *emailList) row(m model.Email, selected bool, width int) string {
	st := l.ctx.Styles()
	unread := "  "
	if !m.IsRead {
		unread = "● "
	}
	fresh := ""
	if l.entry.fresh[m.ID] {
		fresh = "NEW "
	}
	age := ui.FitRight(ui.RelativeTime(m.ReceivedAt, l.ctx.Now), 6)
	att := ""
	if len(m.Attachments) > 0 {
		att = fmt.Sprintf(" +%datt", len(m.Attachments))
	}
	badge, badgeStyle := authBadge(st, m)
	if badge != "" {
		badge = " " + badge
	}
	fromW := ui.Clamp(width/4, 8, 24)
	subjectW := width - model.TextWidth(unread+fresh) - fromW - 1 - model.TextWidth(att+badge+age)
	subject := m.Subject
	if subject == "" {
		subject = "(no subject)"
	}
	if m.Problem != "" {
		subject = "⚠ " + strings.ToUpper(m.Problem)
	}
	from := ui.Fit(displayFrom(m.From), fromW) + " "
	subject = ui.Fit(subject, max(subjectW, 0))
	if selected {
		style := st.SelectedBlurred
		if l.focused {
			style = st.Selected
		}
		return style.Render(ui.Fit(unread+fresh+from+subject+att+badge+age, width))
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

// ShortHelp lists the pane's keys: the filter's while it is typed.
func (l *emailList) ShortHelp() []key.Binding {
	if l.filtering {
		return keys.DefaultPrompt().ShortHelp()
	}
	k := l.ctx.Keys
	return []key.Binding{k.Up, k.Down, k.Open, k.Back, k.Filter, k.Delete, k.MarkUnread}
}

// FullHelp lists the pane's keys in columns.
func (l *emailList) FullHelp() [][]key.Binding {
	k := l.ctx.Keys
	return [][]key.Binding{k.ListKeyMap.ShortHelp(), {k.Open, k.Back, k.Filter, k.Delete, k.MarkUnread, k.Copy, k.Export}}
}
