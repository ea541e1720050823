package reader

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// readerKey handles the reader's keys beyond scrolling and the tabs'
// own: half pages, the search inside the message and piping the open
// email to a command; handled is false for the keys left to the screen
// (marking the open email and the other actions on it).
func (r *Reader) readerKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := r.ctx.Keys
	open, found := r.Email()
	half := max(r.contentHeight()/2, 1)
	switch {
	case key.Matches(msg, k.HalfPageDown):
		r.move(open, found, half)
	case key.Matches(msg, k.HalfPageUp):
		r.move(open, found, -half)
	case key.Matches(msg, k.Search) && found:
		r.finder.startFind()
	case key.Matches(msg, k.NextMatch):
		r.finder.jump(1)
	case key.Matches(msg, k.PrevMatch):
		r.finder.jump(-1)
	case key.Matches(msg, k.Back) && r.finder.find.text != "":
		r.finder.find.reset()
		r.scroll.SetHeight(r.contentHeight())
	case key.Matches(msg, k.Pipe) && found:
		return r.pipe.prompt(r.address, open), true
	default:
		return nil, false
	}
	return nil, true
}
