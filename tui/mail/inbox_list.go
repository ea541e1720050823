package mail

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/tui/ui"
)

// inboxRowHeight is the number of lines one inbox takes in the list.
const inboxRowHeight = 2

// inboxList is the pane listing every inbox; its cursor is the inbox the
// other panes show.
type inboxList struct {
	ctx     *ui.Context
	state   *mailState
	acts    *actions
	list    ui.List
	width   int
	height  int
	focused bool
}

func newInboxList(ctx *ui.Context, st *mailState, acts *actions) *inboxList {
	return &inboxList{ctx: ctx, state: st, acts: acts, list: ui.NewList(inboxRowHeight)}
}

// SetSize sets the outer size of the pane.
func (l *inboxList) SetSize(width, height int) {
	l.width, l.height = width, height
	l.list.SetHeight(height - 2)
}

// SetFocus tells the pane whether it has the keyboard.
func (l *inboxList) SetFocus(focused bool) { l.focused = focused }

// sync follows the state after inboxes came or went.
func (l *inboxList) sync() { l.list.SetLen(len(l.state.entries)) }

// selected returns the entry under the cursor, if any.
func (l *inboxList) selected() *inboxEntry {
	l.sync()
	if l.list.Len() == 0 {
		return nil
	}
	return l.state.entries[l.list.Cursor()]
}

// selectAddress moves the cursor to address.
func (l *inboxList) selectAddress(address string) {
	l.sync()
	if _, i := l.state.find(address); i >= 0 {
		l.list.Select(i)
	}
}

// HandleKey moves the cursor and acts on the selected inbox.
func (l *inboxList) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	l.sync()
	if _, ok := l.list.HandleKey(l.ctx.Keys.ListKeyMap, msg); ok {
		return nil, true
	}
	if key.Matches(msg, l.ctx.Keys.Delete) {
		l.acts.confirmDeleteInbox()
		return nil, true
	}
	return l.acts.inboxKey(msg)
}

// click selects the inbox at line y of the pane.
func (l *inboxList) click(y int) {
	l.sync()
	if i := l.list.RowAt(y - 1); i >= 0 {
		l.list.Select(i)
	}
}

// wheel moves the cursor by a turn of the wheel.
func (l *inboxList) wheel(lines int) {
	l.sync()
	l.list.Wheel(lines)
}

// View draws the pane.
func (l *inboxList) View() string {
	l.sync()
	st := l.ctx.Styles()
	k := l.ctx.Keys
	inner := l.width - 2
	var body []string
	if len(l.state.entries) == 0 {
		body = append(body, st.Muted.Render("No inboxes yet."),
			st.Muted.Render(fmt.Sprintf("Press %s to create one", ui.KeyName(k.New))),
			st.Muted.Render(fmt.Sprintf("or %s to import one.", ui.KeyName(k.Import))))
	}
	body = append(body, l.list.Render(func(i int, selected bool) []string {
		return l.row(l.state.entries[i], selected, inner)
	})...)
	title := fmt.Sprintf("Inboxes (%d)", len(l.state.entries))
	return ui.Frame(l.ctx, title, l.focused, l.width, l.height, body)
}

// row renders the two lines of one inbox: its address, then the chaos
// badge while its chaos is active, what is left of its life (first, so
// it is never cut), its counts and whether it
// is encrypted. An inbox gone from the server says so instead of a time.
func (l *inboxList) row(e *inboxEntry, selected bool, width int) []string {
	st := l.ctx.Styles()
	now := l.ctx.Now
	expired := e.info.IsExpired(now)
	kind := "plain"
	if e.info.Encrypted {
		kind = "enc"
	}
	left := "expired"
	switch {
	case e.gone != "":
		left = "gone from the server"
	case !expired:
		left = ui.Countdown(e.info.TimeLeft(now)) + " left"
	}
	counts := fmt.Sprintf("%d/%d", e.unread, len(e.emails))
	if !e.loaded {
		counts = "…"
	}
	line1 := " " + e.info.EmailAddress
	line2 := fmt.Sprintf("  %s · %s · %s", left, counts, kind)
	badge := chaosBadge(e, now)
	if badge != "" {
		// First, so that a narrow pane still shows it.
		line2 = fmt.Sprintf("  %s · %s · %s · %s", badge, left, counts, kind)
	}
	if selected {
		style := st.SelectedBlurred
		if l.focused {
			style = st.Selected
		}
		return []string{style.Render(ui.Fit(line1, width)), style.Render(ui.Fit(line2, width))}
	}
	if expired || e.gone != "" {
		return []string{st.Dim.Render(ui.Fit(line1, width)), st.Muted.Render(ui.Fit(line2, width))}
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
	line2 = "  " + st.Muted.Render(left+" · ") + countStyle.Render(counts) + st.Muted.Render(" · ") + kindStyle.Render(kind)
	if badge != "" {
		line2 = ui.Fit("  "+st.Chaos.Render(badge)+st.Muted.Render(" · ")+line2[2:], width)
	}
	return []string{addr, line2}
}

// ShortHelp lists the pane's keys.
func (l *inboxList) ShortHelp() []key.Binding {
	k := l.ctx.Keys
	return []key.Binding{k.Open, k.Search, k.New, k.Delete, k.Copy, k.Export, k.Import, k.Down, k.Up}
}

// FullHelp lists the pane's keys in columns.
func (l *inboxList) FullHelp() [][]key.Binding {
	k := l.ctx.Keys
	return [][]key.Binding{k.ListKeyMap.ShortHelp(), {k.Open, k.Search, k.New, k.Delete, k.Copy, k.Export, k.Import}}
}
