package mail

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/tui/ui"
)

// previewDelay is how long the list cursor must rest before the reader
// shows the email under it: moving through the list stays instant, and
// only the email the cursor stops on is fetched.
const previewDelay = 120 * time.Millisecond

// previewMsg is the tick of one cursor move (seq); only the last move's
// tick shows its email.
type previewMsg struct{ seq int }

// previewer has the reader follow the email list's cursor: it shows the
// email the cursor rests on, or opens the next one from the reader.
type previewer struct {
	ctx  *ui.Context
	cmds commands
	*panes
	// previewSeq numbers the cursor moves the reader follows, the last
	// one to previewFor; only its tick shows the email.
	previewSeq int
	previewFor emailRef
}

// followCursor schedules the reader to show the email under the list's
// cursor, in the layouts where both are on screen (wide and stacked),
// unless it shows it already or is about to.
func (s *previewer) followCursor() tea.Cmd {
	if s.lay.Mode == ui.Narrow || s.Focus() == PaneReader {
		return nil
	}
	m, e, ok := s.emails.selected()
	if !ok {
		return nil
	}
	ref := emailRef{e.info.EmailAddress, m.ID}
	if s.reader.Showing(ref.address, ref.id) || ref == s.previewFor {
		return nil
	}
	s.previewFor = ref
	s.previewSeq++
	seq := s.previewSeq
	return s.ctx.Tick(previewDelay, func(time.Time) tea.Msg { return previewMsg{seq: seq} })
}

// preview shows the email under the cursor if the cursor rested there
// since the move of tick seq.
func (s *previewer) preview(seq int) tea.Cmd {
	if seq != s.previewSeq {
		return nil
	}
	s.previewFor = emailRef{}
	if s.lay.Mode == ui.Narrow {
		return nil
	}
	return s.show()
}

// openSelected opens the email under the list's cursor and gives the
// reader the keyboard.
func (s *previewer) openSelected() tea.Cmd {
	if _, _, ok := s.emails.selected(); !ok {
		return nil
	}
	s.setFocus(PaneReader)
	return s.show()
}

// show puts the email under the list's cursor in the reader: its content
// is fetched when the list lacks it. Showing marks nothing read (see
// read_state.go).
func (s *previewer) show() tea.Cmd {
	sel, e, ok := s.emails.selected()
	if !ok {
		return nil
	}
	address := e.info.EmailAddress
	s.reader.Open(address, sel.ID)
	delete(e.fresh, sel.ID)
	if sel.Problem != "" {
		return nil
	}
	var cmds []tea.Cmd
	if needsFetch(sel) {
		cmds = append(cmds, s.cmds.loadEmail(address, sel.ID))
	}
	cmds = append(cmds, s.reader.LoadRaw(), s.reader.LoadRendered())
	return tea.Batch(cmds...)
}

// step opens the next (J) or previous (K) email of the list from the
// reader.
func (s *previewer) step(msg tea.KeyPressMsg) tea.Cmd {
	delta := 1
	if key.Matches(msg, s.ctx.Keys.PrevMessage) {
		delta = -1
	}
	if !s.emails.list.Move(delta) {
		edge := "last"
		if delta < 0 {
			edge = "first"
		}
		s.ctx.Flash("this is the "+edge+" message", ui.LevelInfo)
		return nil
	}
	s.emails.userMoved()
	return s.show()
}

// Resized has the reader show the email under the list's cursor at once
// after the terminal was resized: a layout that shows the list and the
// reader together again (one pane at a time before) never shows one email
// highlighted and another in the reader.
func (s *previewer) Resized() tea.Cmd { return s.catchUp() }

// catchUp shows the email under the list's cursor in the reader at once,
// where both are on screen and the reader does not have the keyboard, if
// the reader shows another: after a resize, and when the list gets the
// keyboard back (its cursor may have gone to the newest mail meanwhile).
func (s *previewer) catchUp() tea.Cmd {
	if s.lay.Mode == ui.Narrow || s.Focus() == PaneReader {
		return nil
	}
	m, e, ok := s.emails.selected()
	if !ok || s.reader.Showing(e.info.EmailAddress, m.ID) {
		return nil
	}
	s.previewFor = emailRef{}
	s.previewSeq++ // a pending tick shows nothing more
	return s.show()
}
