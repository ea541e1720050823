package mail

import (
	"errors"

	"sandview/client"
	"sandview/tui/ui"
)

// The interface's event stream announces new mail only: an email deleted
// by another client stays listed until the service answers 404 for it.
// Opening it (the read mark after the dwell, its content or source
// fetched) or acting on it then drops it from the list and the reader.
// sandview's own server also tells of deletions (feed.EmailDeletedMsg,
// its deletion notices), and the email leaves at once.

// isGone reports whether err says the server no longer holds the email.
func isGone(err error) bool {
	var nf *client.EmailNotFoundError
	return errors.As(err, &nf)
}

// dropper takes emails out of the mail screen: those a bulk action
// deleted and those the server answered 404 for leave their inbox, the
// search index, the list and the reader.
type dropper struct {
	ctx   *ui.Context
	state *mailState
	*panes
}

// forget removes an email from its inbox, the search index and the
// reader; the list gets the keyboard if the reader had it.
func (s *dropper) forget(e *inboxEntry, id string) {
	if m, ok := e.email(id); ok {
		s.emails.find.index.Forget(m)
	}
	e.removeEmail(id)
	if s.reader.Showing(e.info.EmailAddress, id) {
		s.reader.Clear()
		if s.Focus() == PaneReader {
			s.setFocus(PaneEmails)
		}
	}
}

// dropGone forgets the emails the server answered 404 for and says so.
func (s *dropper) dropGone(refs []emailRef) {
	n := 0
	for _, r := range refs {
		if e, _ := s.state.find(r.address); e != nil {
			if _, ok := e.email(r.id); ok {
				s.forget(e, r.id)
				n++
			}
		}
	}
	if n == 0 {
		return
	}
	s.emails.refresh()
	s.ctx.Flash("removed "+ui.Plural(n, "email", "emails")+" deleted on the server", ui.LevelInfo)
}
