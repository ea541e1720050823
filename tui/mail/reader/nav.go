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
		r.startFind()
	case key.Matches(msg, k.NextMatch):
		r.jump(1)
	case key.Matches(msg, k.PrevMatch):
		r.jump(-1)
	case key.Matches(msg, k.Back) && r.find.text != "":
		r.find.reset()
		r.scroll.SetHeight(r.contentHeight())
	case key.Matches(msg, k.Pipe) && found:
		return r.promptPipe(open), true
	default:
		return nil, false
	}
	return nil, true
}

// Update applies the result of one of the reader's commands (a link
// checked, a render done, a pipe run); ok is false for other messages.
func (r *Reader) Update(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case linksCheckedMsg:
		return r.checks.done(r.ctx, msg), true
	case renderedMsg:
		r.renderDone(msg)
	case pipeDoneMsg:
		r.piped(msg)
	default:
		return nil, false
	}
	return nil, true
}

// Typing reports whether the search inside the message has the keyboard.
func (r *Reader) Typing() bool { return r.find.typing }

// Paste types pasted text into the search inside the message.
func (r *Reader) Paste(text string) {
	r.find.field.Insert(text)
	r.setFind(r.find.field.Value())
}
