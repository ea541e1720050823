package mail

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// readerKey handles the reader's keys beyond scrolling and the tabs'
// own: half pages, the search inside the message, marking the open email,
// piping it to a command, and the actions on it (bulk.go); handled is
// false for the keys left to the screen.
func (r *reader) readerKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := r.ctx.Keys
	open, found := r.email()
	half := max(r.contentHeight()/2, 1)
	switch {
	case key.Matches(msg, k.HalfPageDown):
		r.move(open, found, half)
	case key.Matches(msg, k.HalfPageUp):
		r.move(open, found, -half)
	case key.Matches(msg, k.Search) && found:
		r.startFind()
	case key.Matches(msg, k.NextMatch):
		r.jump(1)
	case key.Matches(msg, k.PrevMatch):
		r.jump(-1)
	case key.Matches(msg, k.Back) && r.find.text != "":
		r.find.reset()
		r.scroll.SetHeight(r.contentHeight())
	case key.Matches(msg, k.Mark) && found:
		r.entry().toggleMark(open.ID)
	case key.Matches(msg, k.Pipe) && found:
		return r.promptPipe(open), true
	case found && key.Matches(msg, k.Delete, k.MarkUnread, k.SaveAll):
		return r.acts.bulkKey(msg, []target{{entry: r.entry(), email: open}}, r.entry())
	default:
		return nil, false
	}
	return nil, true
}
