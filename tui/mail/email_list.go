package mail

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
	"sandview/model"
	"sandview/model/search"
	"sandview/tui/ui"
)

// emailRef names an email of an inbox.
type emailRef struct{ address, id string }

// emailList is the pane listing the emails of the selected inbox (or of
// every inbox, with in:all), newest first, under an optional search. It
// keeps the positions of the matches in its listing and draws only the
// rows in view; actions apply to the marked emails, else to the one under
// the cursor.
type emailList struct {
	ctx   *ui.Context
	acts  *actions
	state *mailState
	entry *inboxEntry // the selected inbox
	shown
	scopeAt int // the state's version when an in:all scope was listed
	seen    int // the state's version at the last refresh
	width   int
	height  int
	find    finder
	*rowPainter
}

func newEmailList(ctx *ui.Context, st *mailState, acts *actions, index *search.Index, hint func(*inboxEntry) string, catchAll string) *emailList {
	l := &emailList{
		ctx: ctx, acts: acts, state: st, shown: shown{list: ui.NewList(1)},
		find: finder{field: ui.NewTextField(ctx.Edit, ""), index: index},
	}
	l.rowPainter = &rowPainter{ctx: ctx, catchAll: catchAll, shown: &l.shown, find: &l.find, hint: hint,
		spinner: spinner.New(spinner.WithSpinner(spinner.MiniDot))}
	return l
}

// SetSize sets the outer size of the pane.
func (l *emailList) SetSize(width, height int) {
	l.width, l.height = width, height
	l.resize()
}

// resize gives the rows the lines under the search line.
func (l *emailList) resize() {
	l.list.SetHeight(l.height - 2 - l.headerLines())
	l.remember()
}

// SetFocus tells the pane whether it has the keyboard.
func (l *emailList) SetFocus(focused bool) { l.focused = focused }

// CapturesInput reports whether the search field has the keyboard.
func (l *emailList) CapturesInput() bool { return l.find.typing }

// setEntry shows another inbox (the search is kept), or lists again when
// the emails changed.
func (l *emailList) setEntry(e *inboxEntry) {
	if l.entry == e {
		if l.seen != l.state.version {
			l.refresh()
		}
		return
	}
	l.entry = e
	l.list = ui.NewList(1)
	l.resize()
	l.cur = emailRef{}
	l.moved = false
	l.refresh()
}

// refresh lists and searches again after the emails changed, keeping the
// cursor on the same email when it is still listed, or on the newest one
// while the user has not moved it.
func (l *emailList) refresh() {
	switch {
	case l.find.query.AllInboxes():
		if l.scope.owners == nil || l.scopeAt != l.state.version {
			l.scope, l.scopeAt = allInboxes(l.state), l.state.version
		}
	case l.entry != nil:
		l.scope = listing{emails: l.entry.emails, entry: l.entry}
	default:
		l.scope = listing{}
	}
	l.seen = l.state.version
	l.showTo = l.listsForeignMail()
	l.filtered = l.find.index.Filter(l.find.query, l.scope.emails)
	l.needs = l.rowNeeds()
	l.list.SetLen(len(l.filtered))
	if !l.moved && !l.held {
		l.list.Select(0)
	} else if pos, ok := l.positionOf(l.cur); ok {
		l.list.Select(pos)
	}
	l.remember()
}

// userMoved notes that the user moved the cursor: new mail no longer
// moves it.
func (l *shown) userMoved() {
	l.moved = true
	l.remember()
}

// hold keeps the cursor on its email while the reader has the keyboard
// (on); let go, a cursor the user never moved goes back to the newest
// email.
func (l *emailList) hold(on bool) {
	if l.held == on {
		return
	}
	l.held = on
	if !on && !l.moved {
		l.refresh()
	}
}

// positionOf is the row of an email in the filtered list.
func (l *shown) positionOf(ref emailRef) (int, bool) {
	if ref.id == "" {
		return 0, false
	}
	for row, pos := range l.filtered {
		if l.scope.emails[pos].ID == ref.id && strings.EqualFold(l.scope.owner(pos).info.EmailAddress, ref.address) {
			return row, true
		}
	}
	return 0, false
}

// lists reports whether the list holds the email ref (under the cursor,
// most often).
func (l *shown) lists(ref emailRef) bool {
	if m, e, ok := l.selected(); ok && m.ID == ref.id && strings.EqualFold(e.info.EmailAddress, ref.address) {
		return true
	}
	_, ok := l.positionOf(ref)
	return ok
}

// remember notes the email under the cursor, to find it again after the
// list changes.
func (l *shown) remember() {
	if m, e, ok := l.selected(); ok {
		l.cur = emailRef{e.info.EmailAddress, m.ID}
	}
}

// selected returns the email under the cursor and its inbox.
func (l *shown) selected() (model.Email, *inboxEntry, bool) {
	c := l.list.Cursor()
	if c >= len(l.filtered) {
		return model.Email{}, nil, false
	}
	pos := l.filtered[c]
	return l.scope.emails[pos], l.scope.owner(pos), true
}

// headerLines is the number of body lines above the rows: the search's
// (searchLines).
func (l *emailList) headerLines() int {
	switch {
	case l.find.err != "":
		return 2
	case l.find.typing || l.find.active():
		return 1
	}
	return 0
}

// HandleKey edits the search while it has the keyboard; otherwise it
// moves the cursor, marks, and acts on the marked emails or the one under
// the cursor.
func (l *emailList) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if l.find.typing {
		return l.searchKey(msg), true
	}
	k := l.ctx.Keys
	if _, ok := l.list.HandleKey(k.ListKeyMap, msg); ok {
		l.userMoved()
		return nil, true
	}
	switch {
	case key.Matches(msg, k.Back) && l.state.markedCount() > 0:
		l.state.clearMarks()
	case key.Matches(msg, k.Back) && l.find.active():
		l.setSearch("")
	case key.Matches(msg, k.Search):
		l.startSearch()
	case key.Matches(msg, k.Mark):
		if m, e, ok := l.selected(); ok {
			e.toggleMark(m.ID)
			l.list.Move(1)
			l.userMoved()
		}
	case key.Matches(msg, k.MarkAll):
		l.markAll()
	default:
		return l.acts.bulkKey(msg, l.targets(), l.entry)
	}
	return nil, true
}

// startSearch gives the search field the keyboard.
func (l *emailList) startSearch() {
	l.find.typing = true
	l.find.field = ui.NewTextField(l.ctx.Edit, l.find.text)
	l.resize()
}

// searchKey edits the search; the list follows as the user types.
func (l *emailList) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	p := keys.DefaultPrompt()
	switch {
	case key.Matches(msg, p.Accept):
		l.find.typing = false
	case key.Matches(msg, p.Cancel):
		l.find.typing = false
		l.setSearch("")
	default:
		l.find.field.HandleKey(msg)
		return l.applySearch()
	}
	l.resize()
	return nil
}

// applySearch searches with what the field holds.
func (l *emailList) applySearch() tea.Cmd {
	if l.find.set(l.find.field.Value(), l.ctx) {
		l.refresh()
	}
	l.resize()
	return l.loadContent()
}

// setSearch replaces the search text.
func (l *emailList) setSearch(text string) tea.Cmd {
	l.find.field = ui.NewTextField(l.ctx.Edit, text)
	return l.applySearch()
}

// Paste types pasted text into the search while it has the keyboard.
func (l *emailList) Paste(text string) tea.Cmd {
	if !l.find.typing {
		return nil
	}
	l.find.field.Insert(text)
	return l.applySearch()
}

// markAll marks every email shown, or unmarks them when all are marked.
func (l *shown) markAll() {
	all := true
	for _, pos := range l.filtered {
		if !l.scope.owner(pos).marked[l.scope.emails[pos].ID] {
			all = false
			break
		}
	}
	for _, pos := range l.filtered {
		e, id := l.scope.owner(pos), l.scope.emails[pos].ID
		if all {
			delete(e.marked, id)
		} else {
			e.marked[id] = true
		}
	}
}

// targets are the emails an action applies to: the marked ones, else the
// one under the cursor.
func (l *emailList) targets() []target {
	if l.state.markedCount() > 0 {
		return l.state.markedTargets()
	}
	if m, e, ok := l.selected(); ok {
		return []target{{entry: e, email: m}}
	}
	return nil
}

// rowAt maps a line of the pane to a row (-1 if none).
func (l *emailList) rowAt(y int) int { return l.list.RowAt(y - 1 - l.headerLines()) }

// clickedRow puts the cursor on row i; it reports whether the row was
// already selected (a second click opens it).
func (l *shown) clickedRow(i int) bool {
	if i == l.list.Cursor() {
		return true
	}
	l.list.Select(i)
	l.userMoved()
	return false
}

// wheel moves the cursor by a turn of the wheel.
func (l *shown) wheel(lines int) {
	l.list.Wheel(lines)
	l.userMoved()
}

// spin advances the loading indicator.
func (l *rowPainter) spin(msg spinner.TickMsg) { l.spinner, _ = l.spinner.Update(msg) }

// title is the pane's title: where the cursor is among the rows, and how
// many emails are marked.
func (l *emailList) title() string {
	name := "Messages"
	if l.find.query.AllInboxes() {
		name = "All inboxes"
	}
	switch {
	case l.entry == nil && !l.find.query.AllInboxes():
		return name
	case l.entry != nil && l.entry.loading && len(l.filtered) == 0:
		return name + " (loading…)"
	}
	pos := 0
	if len(l.filtered) > 0 {
		pos = l.list.Cursor() + 1
	}
	title := fmt.Sprintf("%s %d/%d", name, pos, len(l.filtered))
	if n := l.state.markedCount(); n > 0 {
		title += " · " + fmt.Sprintf("%d marked", n)
	}
	if p := l.loadProgress(); p != "" {
		title += " · " + p
	}
	if l.entry != nil && !l.find.query.AllInboxes() {
		// Which inbox this is, also when the inbox pane is hidden.
		title += " · " + l.entry.info.EmailAddress
		if badge := chaosBadge(l.entry, l.ctx.Now); badge != "" {
			title += " · " + badge
		}
	}
	return title
}

// View draws the pane.
func (l *emailList) View() string {
	st := l.ctx.Styles()
	inner := l.width - 2
	var body []string
	if l.headerLines() > 0 {
		body = append(body, l.searchLines(inner)...)
	}
	if l.entry == nil && !l.find.query.AllInboxes() {
		body = append(body, st.Muted.Render("No inbox selected."))
	} else {
		body = append(body, l.rows(inner, l.entry, l.loadProgress() != "" || l.loadingContent())...)
	}
	return ui.Frame(l.ctx, l.title(), l.focused, l.width, l.height, body)
}

// ShortHelp lists the pane's keys, the search's while it is typed.
func (l *emailList) ShortHelp() []key.Binding {
	if l.find.typing {
		return keys.DefaultPrompt().ShortHelp()
	}
	k := l.ctx.Keys
	return []key.Binding{k.Open, k.Search, k.Mark, k.Delete, k.MarkUnread, k.MarkAll, k.DeleteAll, k.Back, k.Down, k.Up}
}

// FullHelp lists the pane's keys in columns.
func (l *emailList) FullHelp() [][]key.Binding {
	k := l.ctx.Keys
	return [][]key.Binding{k.ListKeyMap.ShortHelp(), {k.Open, k.Back, k.Search, k.Mark, k.MarkAll, k.Delete, k.MarkUnread, k.MarkAllRead, k.DeleteAll, k.Save, k.SaveAll}}
}
