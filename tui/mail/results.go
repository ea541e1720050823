package mail

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"sandview/tui/feed"
	"sandview/tui/ui"
)

// Update applies the result of a Cmd, a message of the live feed or a tick
// of the loading indicator; ok is false for messages that are not the mail
// screen's.
func (s *Screen) Update(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	defer s.sync()
	switch msg := msg.(type) {
	case inboxesLoadedMsg:
		s.store.setInboxes(msg.inboxes)
	case emailsLoadedMsg:
		s.emailsLoaded(msg)
	case feed.NewEmailMsg:
		if e, _ := s.store.find(msg.Address); e != nil {
			e.addEmail(msg.Email)
			s.emails.refresh()
			s.ctx.Flash("new mail in "+e.info.EmailAddress, ui.LevelSuccess)
		}
	case feed.InboxReadyMsg:
		// Mail that arrived before the inbox started delivering is in its
		// list.
		return s.cmds.loadEmails(msg.Address), true
	case emailLoadedMsg:
		s.emailLoaded(msg)
	case rawLoadedMsg:
		if s.reader.showing(msg.address, msg.id) {
			s.reader.source.set(msg.raw, msg.err)
		}
	case markedReadMsg:
		if msg.err != nil {
			if e, _ := s.store.find(msg.address); e != nil {
				e.setRead(msg.id, false)
			}
			s.ctx.Flash("mark read failed: "+ui.ErrorText(msg.err), ui.LevelError)
		}
	case inboxAddedMsg:
		return s.inboxAdded(msg), true
	case inboxDeletedMsg:
		if msg.err != nil {
			s.ctx.Flash("delete inbox: "+ui.ErrorText(msg.err), ui.LevelError)
			return nil, true
		}
		if s.reader.address == msg.address {
			s.reader.close()
		}
		s.store.remove(msg.address)
		s.ctx.Flash("deleted "+msg.address, ui.LevelSuccess)
	case emailDeletedMsg:
		if msg.err != nil {
			s.ctx.Flash("delete email: "+ui.ErrorText(msg.err), ui.LevelError)
			return nil, true
		}
		if e, _ := s.store.find(msg.address); e != nil {
			e.removeEmail(msg.id)
			s.emails.refresh()
		}
		if s.reader.showing(msg.address, msg.id) {
			s.reader.close()
		}
		s.ctx.Flash("email deleted", ui.LevelSuccess)
	case spinner.TickMsg:
		if msg.ID != s.emails.spinner.ID() {
			return nil, false
		}
		s.emails.spin(msg)
		if s.store.loading() {
			return s.nextSpin(), true
		}
		s.spinning = false
	default:
		return nil, false
	}
	return nil, true
}

func (s *Screen) emailsLoaded(msg emailsLoadedMsg) {
	e, _ := s.store.find(msg.address)
	if e == nil {
		return
	}
	if msg.emails == nil && msg.err != nil {
		e.loading = false
		e.loadErr = ui.ErrorText(msg.err)
		s.ctx.Flash("load "+e.info.EmailAddress+": "+e.loadErr, ui.LevelError)
		return
	}
	before := len(e.fresh)
	e.loadErr = ""
	e.setEmails(msg.emails)
	if e == s.emails.entry {
		s.emails.refresh()
	}
	if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
		s.ctx.Flash("⚠ "+ui.ErrorText(msg.err), ui.LevelError)
	} else if n := len(e.fresh) - before; n > 0 {
		s.ctx.Flash(fmt.Sprintf("%d new in %s", n, e.info.EmailAddress), ui.LevelSuccess)
	}
}

func (s *Screen) emailLoaded(msg emailLoadedMsg) {
	e, _ := s.store.find(msg.address)
	if e == nil {
		return
	}
	if msg.err != nil {
		s.ctx.Flash("open email: "+ui.ErrorText(msg.err), ui.LevelError)
		if msg.email.ID == "" || msg.email.Problem == "" {
			return
		}
	}
	wasRead := false
	if old, ok := e.email(msg.email.ID); ok {
		wasRead = old.IsRead
	}
	em := msg.email
	em.HasContent = em.HasContent || em.Problem == ""
	if wasRead {
		em.IsRead = true
	}
	e.replaceEmail(em)
	if e == s.emails.entry {
		s.emails.refresh()
	}
	if em.Problem != "" {
		s.ctx.Flash("⚠ "+strings.ToUpper(em.Problem)+": this email could not be opened", ui.LevelError)
	}
}

// inboxAdded puts a created or imported inbox in the list and selects it;
// an error goes back to the open form or prompt, keeping what was typed.
func (s *Screen) inboxAdded(msg inboxAddedMsg) tea.Cmd {
	in, err := msg.inbox, msg.err
	top := s.ctx.Dialog()
	if err != nil && in.EmailAddress == "" {
		switch d := top.(type) {
		case *createForm:
			d.failed(err)
		case *ui.Prompt:
			d.Failed(err)
		default:
			s.ctx.Flash(msg.verb+": "+ui.ErrorText(err), ui.LevelError)
		}
		return nil
	}
	switch top.(type) {
	case *createForm, *ui.Prompt:
		s.ctx.Close(top)
	}
	e := s.store.add(in)
	s.inboxes.selectAddress(e.info.EmailAddress)
	s.sync()
	s.ctx.Flash(msg.verb+" "+e.info.EmailAddress, ui.LevelSuccess)
	if err != nil {
		s.ctx.Flash(msg.verb+" "+e.info.EmailAddress+", but "+ui.ErrorText(err), ui.LevelWarn)
	}
	e.loading = true
	return tea.Batch(s.cmds.loadEmails(e.info.EmailAddress), s.startSpinner())
}
