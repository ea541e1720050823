package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
)

// handleResult applies the result of a Cmd or a feed message.
func (m *Model) handleResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case inboxesLoadedMsg:
		m.store.setInboxes(msg.inboxes)
		m.syncSelection()
	case emailsLoadedMsg:
		return m.emailsLoaded(msg)
	case newEmailMsg:
		if e, _ := m.store.find(msg.address); e != nil {
			e.addEmail(msg.email)
			m.messages.refresh()
			m.flash("new mail in "+e.info.EmailAddress, levelSuccess)
		}
	case emailLoadedMsg:
		return m.emailLoaded(msg)
	case rawLoadedMsg:
		if m.message.address == msg.address && m.message.id == msg.id {
			m.message.setRaw(msg.raw, msg.err)
		}
	case markedReadMsg:
		if msg.err != nil {
			if e, _ := m.store.find(msg.address); e != nil {
				e.setRead(msg.id, false)
			}
			m.flash("mark read failed: "+errorText(msg.err), levelError)
		}
	case inboxCreatedMsg:
		return m.inboxAdded(msg.inbox, msg.err, "created ")
	case inboxImportedMsg:
		return m.inboxAdded(msg.inbox, msg.err, "imported ")
	case inboxDeletedMsg:
		if msg.err != nil {
			m.flash("delete inbox: "+errorText(msg.err), levelError)
			return nil
		}
		if m.message.address == msg.address {
			m.message.close()
		}
		m.store.remove(msg.address)
		m.syncSelection()
		m.flash("deleted "+msg.address, levelSuccess)
	case emailDeletedMsg:
		if msg.err != nil {
			m.flash("delete email: "+errorText(msg.err), levelError)
			return nil
		}
		if e, _ := m.store.find(msg.address); e != nil {
			e.removeEmail(msg.id)
			m.messages.refresh()
		}
		if m.message.address == msg.address && m.message.id == msg.id {
			m.message.close()
		}
		m.flash("email deleted", levelSuccess)
	case promptDoneMsg:
		p, isPrompt := m.overlay.(*prompt)
		if msg.err != nil {
			if isPrompt {
				p.failed(msg.err)
			} else {
				m.flash(errorText(msg.err), levelError)
			}
			return nil
		}
		if isPrompt {
			m.overlay = nil
		}
		m.flash(msg.status, levelSuccess)
	case statusMsg:
		m.flash(msg.text, msg.level)
	case connStateMsg:
		m.status.conn = connState(msg)
	}
	return nil
}

func (m *Model) emailsLoaded(msg emailsLoadedMsg) tea.Cmd {
	e, _ := m.store.find(msg.address)
	if e == nil {
		return nil
	}
	if msg.emails == nil && msg.err != nil {
		e.loading = false
		e.loadErr = errorText(msg.err)
		m.flash("load "+e.info.EmailAddress+": "+e.loadErr, levelError)
		return nil
	}
	before := len(e.fresh)
	e.loadErr = ""
	e.setEmails(msg.emails)
	if e == m.messages.entry {
		m.messages.refresh()
	}
	if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
		m.flash("⚠ "+errorText(msg.err), levelError)
	} else if n := len(e.fresh) - before; n > 0 {
		m.flash(fmt.Sprintf("%d new in %s", n, e.info.EmailAddress), levelSuccess)
	}
	return nil
}

func (m *Model) emailLoaded(msg emailLoadedMsg) tea.Cmd {
	e, _ := m.store.find(msg.address)
	if e == nil {
		return nil
	}
	if msg.err != nil {
		m.flash("open email: "+errorText(msg.err), levelError)
		if msg.email.ID == "" || msg.email.Problem == "" {
			return nil
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
	if e == m.messages.entry {
		m.messages.refresh()
	}
	if em.Problem != "" {
		m.flash("⚠ "+strings.ToUpper(em.Problem)+": this email could not be opened", levelError)
	}
	return nil
}

// inboxAdded puts a created or imported inbox in the list and selects it;
// an error goes back to the open form or prompt, keeping what was typed.
func (m *Model) inboxAdded(in model.Inbox, err error, verb string) tea.Cmd {
	if err != nil && in.EmailAddress == "" {
		switch o := m.overlay.(type) {
		case *createForm:
			o.failed(err)
		case *prompt:
			o.failed(err)
		default:
			m.flash(strings.TrimSpace(verb)+": "+errorText(err), levelError)
		}
		return nil
	}
	m.overlay = nil
	e := m.store.add(in)
	m.inboxes.selectAddress(e.info.EmailAddress)
	m.syncSelection()
	m.flash(verb+e.info.EmailAddress, levelSuccess)
	if err != nil {
		m.flash(verb+e.info.EmailAddress+", but "+errorText(err), levelWarn)
	}
	e.loading = true
	return tea.Batch(m.cmds.loadEmails(e.info.EmailAddress), m.startSpinner())
}

// handleClick focuses the pane under the pointer and selects the row
// clicked; clicking the selected message opens it.
func (m *Model) handleClick(ms tea.Mouse) tea.Cmd {
	if m.overlay != nil || ms.Button != tea.MouseLeft {
		return nil
	}
	l := m.lay
	switch {
	case l.inboxes.contains(ms.X, ms.Y):
		if l.mode != layoutMedium {
			m.focus = paneInboxes
		}
		if i := m.inboxes.rowAt(ms.Y - l.inboxes.y - 1); i >= 0 {
			m.inboxes.cursor = i
			m.inboxes.scrollToCursor()
			m.messages.setEntry(m.current())
		}
	case l.messages.contains(ms.X, ms.Y):
		m.setFocus(paneMessages)
		if i := m.messages.rowAt(ms.Y - l.messages.y - 1); i >= 0 {
			if i == m.messages.cursor {
				return m.openSelected()
			}
			m.messages.moveTo(i)
		}
	case l.message.contains(ms.X, ms.Y):
		m.setFocus(paneMessage)
	}
	return nil
}

// wheelStep is how far one wheel notch scrolls.
const wheelStep = 3

// wheelDelta is how many rows a wheel event scrolls; ok is false for other
// buttons and while a dialog is open.
func (m *Model) wheelDelta(ms tea.Mouse) (delta int, ok bool) {
	if m.overlay != nil {
		return 0, false
	}
	switch ms.Button {
	case tea.MouseWheelUp:
		return -wheelStep, true
	case tea.MouseWheelDown:
		return wheelStep, true
	}
	return 0, false
}

func (m *Model) handleWheel(ms tea.Mouse) {
	delta, ok := m.wheelDelta(ms)
	if !ok {
		return
	}
	l := m.lay
	open, _ := m.openEmail()
	switch {
	case l.inboxes.contains(ms.X, ms.Y):
		m.inboxes.move(delta / wheelStep)
		m.messages.setEntry(m.current())
	case l.messages.contains(ms.X, ms.Y):
		m.messages.scroll(delta)
	case l.message.contains(ms.X, ms.Y):
		if m.message.tab == tabLinks || m.message.tab == tabAttachments {
			m.message.offset = max(m.message.offset+delta, 0)
		} else {
			m.message.scroll(open, delta)
		}
	case l.auth.contains(ms.X, ms.Y):
		m.auth.scroll(delta)
	}
}
