package mail

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/ui"
)

// loader lists the inboxes and applies what the service sends about them
// to the state: the inbox list, listings (in one piece or streamed, see
// list_stream.go), new mail, emails fetched in full, inboxes added or
// gone.
type loader struct {
	ctx     *ui.Context
	cmds    commands
	state   *mailState
	panes   *panes
	spinner *loadSpinner
	dropper *dropper
}

// Update applies the result of a Cmd, a message of the live feed or a tick
// of the loading indicator; ok is false for messages that are not the mail
// screen's.
func (s *Screen) Update(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	defer func() {
		s.panes.sync()
		if _, rest := msg.(fillMsg); ok && !rest {
			cmd = tea.Batch(cmd, s.previewer.followCursor(), s.readTimer.dwell(), s.filler.fillRows())
		} else if ok {
			cmd = tea.Batch(cmd, s.previewer.followCursor(), s.readTimer.dwell())
		}
	}()
	switch msg := msg.(type) {
	case inboxesLoadedMsg:
		return s.loader.inboxesLoaded(msg), true
	case emailsLoadedMsg:
		return s.loader.emailsLoaded(msg), true
	case emailsListedMsg:
		return s.loader.emailsListed(msg), true
	case feed.NewEmailMsg:
		return s.loader.newEmails([]feed.NewEmailMsg{msg}), true
	case feed.NewEmailsMsg:
		return s.loader.newEmails(msg.Emails), true
	case feed.InboxReadyMsg:
		// Mail that arrived before the inbox started delivering is in its
		// list.
		return s.loader.listInbox(msg.Address), true
	case feed.InboxGoneMsg:
		s.loader.inboxGone(msg.Address, msg.Err)
	case feed.EmailDeletedMsg:
		s.dropper.dropGone([]emailRef{{msg.Address, msg.ID}})
	case feed.ChaosMsg:
		return s.acts.chaosAction(msg), true
	case chaosLoadedMsg:
		s.acts.chaosLoaded(msg)
	case previewMsg:
		return s.previewer.preview(msg.seq), true
	case readMsg:
		return s.readTimer.markOpened(msg.seq), true
	case bulkDoneMsg:
		s.dropper.bulkDone(msg)
	case emailLoadedMsg:
		s.loader.emailLoaded(msg)
		return s.panes.reader.LoadRendered(), true
	case fillMsg:
		return s.filler.fill(msg.seq), true
	case filledMsg:
		s.filler.filled(msg)
	case rawLoadedMsg:
		if isGone(msg.err) {
			s.dropper.dropGone([]emailRef{{msg.address, msg.id}})
		} else {
			s.panes.reader.SetRaw(msg.address, msg.id, msg.raw, msg.err)
		}
	case inboxAddedMsg:
		return s.loader.inboxAdded(msg), true
	case inboxDeletedMsg:
		if msg.err != nil {
			s.ctx.Flash("delete inbox: "+ui.ErrorText(msg.err), ui.LevelError)
			return nil, true
		}
		if s.panes.shown().address == msg.address {
			s.panes.reader.Clear()
		}
		s.state.remove(msg.address)
		s.ctx.Flash("deleted "+msg.address, ui.LevelSuccess)
	case spinner.TickMsg:
		if msg.ID != s.panes.emails.spinner.ID() {
			return nil, false
		}
		s.panes.emails.spin(msg)
		if s.state.loading() {
			return s.spinner.nextSpin(), true
		}
		s.spinner.spinning = false
	default:
		// The results of the reader's own commands.
		return s.panes.reader.Update(msg)
	}
	return nil, true
}

// newEmails adds the emails the feed delivered since the last frame to
// their inboxes, the list refreshed once for them all; they are prepared
// for searching in the background.
func (s *loader) newEmails(batch []feed.NewEmailMsg) tea.Cmd {
	var (
		order []*inboxEntry
		by    = map[*inboxEntry][]model.Email{}
	)
	for _, msg := range batch {
		e, _ := s.state.find(msg.Address)
		if e == nil {
			continue
		}
		if _, ok := by[e]; !ok {
			order = append(order, e)
		}
		by[e] = append(by[e], msg.Email)
	}
	if len(order) == 0 {
		return nil
	}
	var prepared []model.Email
	for _, e := range order {
		e.addEmails(by[e])
		for _, m := range by[e] {
			if m, ok := e.email(m.ID); ok {
				prepared = append(prepared, m)
			}
		}
	}
	s.panes.emails.refresh()
	flash := "new mail in " + order[0].info.EmailAddress
	if len(order) > 1 {
		flash += fmt.Sprintf(" and %s", ui.Plural(len(order)-1, "other inbox", "other inboxes"))
	}
	s.ctx.Flash(flash, ui.LevelSuccess)
	return s.prepare(prepared)
}

// emailsLoaded applies a listing of an inbox; an answer that the inbox
// is not found marks it gone. The emails are prepared for searching in
// the background.
func (s *loader) emailsLoaded(msg emailsLoadedMsg) tea.Cmd {
	e, _ := s.state.find(msg.address)
	if e == nil {
		return nil
	}
	var notFound *client.InboxNotFoundError
	if msg.emails == nil && errors.As(msg.err, &notFound) {
		e.loading = false
		s.inboxGone(msg.address, msg.err)
		return nil
	}
	if msg.emails == nil && msg.err != nil {
		e.loading, e.contentPending = false, false
		e.loadErr = ui.ErrorText(msg.err)
		s.ctx.Flash("load "+e.info.EmailAddress+": "+e.loadErr, ui.LevelError)
		return nil
	}
	before := len(e.fresh)
	e.loadErr = ""
	e.setEmails(msg.emails)
	s.panes.emails.refresh()
	if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
		s.ctx.Flash("⚠ "+ui.ErrorText(msg.err), ui.LevelError)
	} else if n := len(e.fresh) - before; n > 0 {
		s.ctx.Flash(fmt.Sprintf("%s in %s", ui.Plural(n, "new email", "new emails"), e.info.EmailAddress), ui.LevelSuccess)
	}
	return s.prepare(slices.Clone(e.emails))
}

// prepare folds emails into the search index in the background, so the
// first search does not pay for it (emails is the caller's copy).
func (s *loader) prepare(emails []model.Email) tea.Cmd {
	index := s.panes.emails.find.index
	return func() tea.Msg {
		index.Prepare(emails)
		return nil
	}
}

// inboxGone flags an inbox the server no longer knows: its watch ended,
// what it held stays readable until it is deleted here.
func (s *loader) inboxGone(address string, err error) {
	e, _ := s.state.find(address)
	if e == nil || e.gone != "" {
		return
	}
	e.gone = ui.ErrorText(err)
	e.loading = false
	s.ctx.Flash(fmt.Sprintf("%s is gone from the server (%s): no more mail will come; %s removes it here", e.info.EmailAddress, ui.ErrorText(err), ui.KeyName(s.ctx.Keys.Delete)), ui.LevelWarn)
}

// inboxesLoaded applies the service's inbox list: inboxes it gained
// (from the keystore) wait for their first listing.
func (s *loader) inboxesLoaded(msg inboxesLoadedMsg) tea.Cmd {
	if msg.err != nil {
		s.ctx.Flash("keystore: "+ui.ErrorText(msg.err), ui.LevelWarn)
	}
	known := map[string]bool{}
	for _, e := range s.state.entries {
		known[strings.ToLower(e.info.EmailAddress)] = true
	}
	s.state.setInboxes(msg.inboxes)
	var added []string
	for _, e := range s.state.entries {
		if !known[strings.ToLower(e.info.EmailAddress)] {
			e.loading = true
			added = append(added, e.info.EmailAddress)
		}
	}
	var cmds []tea.Cmd
	if len(added) > 0 {
		s.ctx.Flash(fmt.Sprintf("%s from the keystore: %s", ui.Plural(len(added), "inbox", "inboxes"), strings.Join(added, ", ")), ui.LevelSuccess)
		cmds = append(cmds, s.spinner.startSpinner())
	}
	for _, address := range msg.vanished {
		cmds = append(cmds, s.cmds.loadEmails(address))
	}
	return tea.Batch(cmds...)
}

func (s *loader) emailLoaded(msg emailLoadedMsg) {
	e, _ := s.state.find(msg.address)
	if e == nil {
		return
	}
	if isGone(msg.err) {
		s.dropper.dropGone([]emailRef{{msg.address, msg.email.ID}})
		return
	}
	if msg.err != nil {
		s.ctx.Flash("open email: "+ui.ErrorText(msg.err), ui.LevelError)
		if msg.email.ID == "" || msg.email.Problem == "" {
			return
		}
	}
	em := applyLoaded(e, msg.email)
	if e == s.panes.emails.entry {
		s.panes.emails.refresh()
	}
	if em.Problem != "" {
		s.ctx.Flash("⚠ "+strings.ToUpper(em.Problem)+": this email could not be opened", ui.LevelError)
	}
}

// applyLoaded puts an email fetched in full in its inbox e, keeping the
// read flag the list has, and returns it as kept.
func applyLoaded(e *inboxEntry, em model.Email) model.Email {
	if old, ok := e.email(em.ID); ok && old.IsRead {
		em.IsRead = true
	}
	em.HasContent = em.HasContent || em.Problem == ""
	e.replaceEmail(em)
	return em
}

// inboxAdded puts a created or imported inbox in the list and selects it;
// an error goes back to the open form or prompt, keeping what was typed.
func (s *loader) inboxAdded(msg inboxAddedMsg) tea.Cmd {
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
	e := s.state.add(in)
	s.panes.inboxes.selectAddress(e.info.EmailAddress)
	s.panes.sync()
	s.ctx.Flash(msg.verb+" "+e.info.EmailAddress, ui.LevelSuccess)
	if err != nil {
		s.ctx.Flash(msg.verb+" "+e.info.EmailAddress+", but "+ui.ErrorText(err), ui.LevelWarn)
	}
	e.loading = true
	return tea.Batch(s.listInbox(e.info.EmailAddress), s.spinner.startSpinner())
}
