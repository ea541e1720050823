package mail

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/tui/ui"
)

// The read state of an email changes only when the user acts: an email is
// marked read on the service once it was opened (enter, or the reader
// given the keyboard) and stayed open for readDwell; u marks read or
// unread, M marks every email of the inbox read after a confirmation.
// Moving through the list, the preview, a search, switching inbox and mail
// arriving mark nothing.

// readDwell is how long an email must stay open in the focused reader
// before it is marked read: long enough that stepping through the mail
// with J and K marks only what the user stopped to read.
const readDwell = time.Second

// readMsg is the tick of the dwell numbered seq: the email opened then is
// marked read if it is still open.
type readMsg struct{ seq int }

// readTimer marks the email open in the focused reader read once it
// stayed open for readDwell.
type readTimer struct {
	ctx   *ui.Context
	state *mailState
	*panes
	// dwellSeq numbers the read timers, the last one for dwellFor, the
	// email the focused reader shows.
	dwellSeq int
	dwellFor emailRef
}

// readRule says when an email is marked read, for the help.
func readRule(markUnread, markAllRead string) string {
	return fmt.Sprintf("An email is marked read on the server only when you open it (enter, or the reader focused) and it stays open for %d s: "+
		"moving through the list, the preview, a search, switching inbox and new mail mark nothing. "+
		"%s marks read, or unread again (in this session only: the service cannot unmark); %s marks the whole inbox read after asking.",
		int(readDwell/time.Second), markUnread, markAllRead)
}

// opened is the email the focused reader shows ({} when the reader does
// not have the keyboard or shows nothing).
func (s *readTimer) opened() emailRef {
	if s.Focus() != PaneReader || s.shown().id == "" {
		return emailRef{}
	}
	return s.shown()
}

// dwell starts the read timer when the focused reader has come to show
// another email; the timer of the email shown before is void. Opening is
// no cursor move: the list holds its cursor while the reader has the
// keyboard (emailList.hold).
func (s *readTimer) dwell() tea.Cmd {
	cur := s.opened()
	if cur == s.dwellFor {
		return nil
	}
	s.dwellFor = cur
	s.dwellSeq++
	if cur.id == "" {
		return nil
	}
	seq := s.dwellSeq
	return s.ctx.Tick(readDwell, func(time.Time) tea.Msg { return readMsg{seq: seq} })
}

// Leave voids the read timer while another screen is shown: an email is
// marked read only while the user can read it.
func (s *readTimer) Leave() {
	s.dwellFor = emailRef{}
	s.cancelDwell()
}

// Return starts the read timer again when the mail screen is shown again.
func (s *readTimer) Return() tea.Cmd { return s.dwell() }

// cancelDwell voids the running read timer: the user set the read state
// of the open email themselves.
func (s *readTimer) cancelDwell() { s.dwellSeq++ }

// markOpened marks the open email read when it stayed open in the focused
// reader since the tick seq was started.
func (s *readTimer) markOpened(seq int) tea.Cmd {
	ref := s.dwellFor
	if seq != s.dwellSeq || ref.id == "" || s.opened() != ref {
		return nil
	}
	e, _ := s.state.find(ref.address)
	if e == nil || e.gone != "" {
		return nil
	}
	m, ok := e.email(ref.id)
	if !ok || m.IsRead || m.Problem != "" {
		return nil
	}
	return s.emails.acts.markRead([]target{{entry: e, email: m}})
}

// confirmMarkAllRead asks before marking every unread email of an inbox
// read, naming how many.
func (a *actions) confirmMarkAllRead(e *inboxEntry) {
	if e == nil {
		return
	}
	var unread []target
	for _, m := range e.emails {
		if !m.IsRead {
			unread = append(unread, target{entry: e, email: m})
		}
	}
	if len(unread) == 0 {
		a.ctx.Flash("every email of "+e.info.EmailAddress+" is read", ui.LevelInfo)
		return
	}
	a.ctx.Open(ui.NewConfirm(a.ctx, fmt.Sprintf("Mark %s of %s read on the server? The service cannot mark them unread again.",
		ui.Plural(len(unread), "unread email", "unread emails"), e.info.EmailAddress),
		func() tea.Cmd { return a.markRead(unread) }))
}
