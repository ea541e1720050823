package mail

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
	"sandview/tui/service"
	"sandview/tui/ui"
)

// The first listing of an inbox is streamed (Service.EachEmail): the
// newest emails are shown as soon as they are opened, the rest are
// merged in batches while the list is read and opened in the background
// (on every core, see client.Inbox.EachEmail). With 10,000 encrypted
// emails the list takes seconds to open; its first screen does not wait
// for it. Later listings (a resync, a reconnection) replace the list in
// one piece (emailsLoadedMsg), as they must to drop what was deleted
// elsewhere.

// listBatchInterval is the least time between two batches of a streamed
// listing after the first: each batch costs the screen a merge of the
// whole list, and ten a second show the progress well.
const listBatchInterval = 100 * time.Millisecond

// minFirstBatch is the least number of emails of a listing's first
// batch (firstBatch): the rows of a small terminal.
const minFirstBatch = 24

// listStream is one streamed listing of an inbox: the reader's side
// (what was opened and not handed to the screen yet, and how the listing
// ended) behind mu, and the screen's side (listed, relist), touched only
// by Update.
type listStream struct {
	address string
	cancel  context.CancelFunc
	wake    chan struct{} // holds a token when pending grew or the listing ended
	ended   chan struct{} // closed when the listing ended

	mu       sync.Mutex
	pending  []model.Email
	failures []error // failures to open emails
	done     bool
	err      error // the listing's own failure, once done

	// listed counts the emails handed to the screen so far.
	listed int
	// relist is set when the inbox was asked to be listed again while
	// this listing ran: it is, once this one ends.
	relist bool
}

// emailsListedMsg is a batch of a streamed listing: emails in the
// server's order. done marks the last batch, with err the listing's
// failure (nil when it read the whole list) and openErr the failures to
// open emails over the whole listing (those emails are listed, with
// Problem set).
type emailsListedMsg struct {
	stream  *listStream
	emails  []model.Email
	done    bool
	err     error
	openErr error
}

// streamEmails starts a streamed listing of address; its Cmd returns
// once the first batch (the newest first emails) is opened.
func (c commands) streamEmails(address string, first int) (*listStream, tea.Cmd) {
	ctx, cancel := context.WithTimeout(c.ctx, requestTimeout)
	st := &listStream{address: address, cancel: cancel, wake: make(chan struct{}, 1), ended: make(chan struct{})}
	return st, func() tea.Msg {
		go st.read(ctx, c.svc)
		return st.take(first)
	}
}

// read lists the inbox into pending until the list ends or ctx does.
func (st *listStream) read(ctx context.Context, svc service.Service) {
	err := svc.EachEmail(ctx, st.address, func(e model.Email, openErr error) error {
		st.mu.Lock()
		st.pending = append(st.pending, e)
		if openErr != nil {
			st.failures = append(st.failures, openErr)
		}
		st.mu.Unlock()
		st.signal()
		return nil
	})
	st.mu.Lock()
	st.done, st.err = true, err
	st.mu.Unlock()
	st.signal()
	close(st.ended)
}

func (st *listStream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// take waits until want emails are pending or the listing ended, and
// hands over what is pending.
func (st *listStream) take(want int) tea.Msg {
	for {
		st.mu.Lock()
		if st.done || len(st.pending) >= want {
			msg := emailsListedMsg{stream: st, emails: st.pending, done: st.done}
			st.pending = nil
			if st.done {
				msg.err, msg.openErr = st.err, errors.Join(st.failures...)
			}
			st.mu.Unlock()
			return msg
		}
		st.mu.Unlock()
		<-st.wake
	}
}

// next is the Cmd of the batch after one handed over: what was opened
// in the next listBatchInterval, or less when the listing ends sooner.
func (st *listStream) next() tea.Cmd {
	return func() tea.Msg {
		t := time.NewTimer(listBatchInterval)
		defer t.Stop()
		select {
		case <-t.C:
		case <-st.ended:
		}
		return st.take(1)
	}
}

// listInbox lists an inbox: streamed when it was never listed, else in
// one piece. An inbox whose streamed listing runs is listed again once it
// ends.
func (s *loader) listInbox(address string) tea.Cmd {
	e, _ := s.state.find(address)
	if e != nil && e.stream != nil {
		e.stream.relist = true
		return nil
	}
	if e == nil || e.loaded {
		return s.cmds.loadEmails(address)
	}
	e.loading = true
	st, cmd := s.cmds.streamEmails(e.info.EmailAddress, s.firstBatch())
	e.stream = st
	return tea.Batch(cmd, s.spinner.startSpinner())
}

// firstBatch is how many emails the first batch of a streamed listing
// holds: as many as the list pane has lines, so the first frame shows a
// full page of the newest mail and waits for no more (the next batch
// follows within listBatchInterval).
func (s *loader) firstBatch() int { return max(s.panes.emails.height, minFirstBatch) }

// emailsListed merges a batch of a streamed listing into its inbox and
// asks for the next one; the last batch ends the loading (and reports
// failures as a listing in one piece does).
func (s *loader) emailsListed(msg emailsListedMsg) tea.Cmd {
	st := msg.stream
	e, _ := s.state.find(st.address)
	if e == nil || e.stream != st {
		st.cancel() // the inbox went, or another listing replaced this one
		return nil
	}
	st.listed += len(msg.emails)
	added := e.mergeListed(msg.emails)
	s.panes.emails.refresh()
	cmds := []tea.Cmd{s.prepare(added)}
	if !msg.done {
		return tea.Batch(append(cmds, st.next())...)
	}
	st.cancel()
	e.stream = nil
	e.loading, e.contentPending = false, false
	var notFound *client.InboxNotFoundError
	switch {
	case errors.As(msg.err, &notFound):
		s.inboxGone(st.address, msg.err)
		return tea.Batch(cmds...)
	case msg.err != nil && !errors.Is(msg.err, context.Canceled):
		e.loadErr = ui.ErrorText(msg.err)
		s.ctx.Flash("load "+e.info.EmailAddress+": "+e.loadErr, ui.LevelError)
	case msg.err == nil:
		e.loaded, e.loadErr = true, ""
	}
	if msg.openErr != nil {
		s.ctx.Flash("⚠ "+ui.ErrorText(msg.openErr), ui.LevelError)
	}
	if st.relist {
		cmds = append(cmds, s.cmds.loadEmails(st.address))
	}
	return tea.Batch(cmds...)
}

// loadProgress is what the list says while an inbox it shows is listed
// in batches ("" when none is): how many emails are in so far.
func (l *emailList) loadProgress() string {
	listed, streaming := 0, false
	if l.find.query.AllInboxes() {
		for _, e := range l.state.entries {
			if e.stream != nil {
				listed, streaming = listed+e.stream.listed, true
			}
		}
	} else if l.entry != nil && l.entry.stream != nil {
		listed, streaming = l.entry.stream.listed, true
	}
	if !streaming {
		return ""
	}
	return fmt.Sprintf("loading… %s so far", ui.Plural(listed, "email", "emails"))
}

// mergeListed adds a batch of a streamed listing: an email already held
// (delivered live meanwhile) is updated as setEmails updates it, the
// others go in their place, newest first (after those received at the
// same time). It returns the emails stored, for the search index.
func (e *inboxEntry) mergeListed(batch []model.Email) []model.Email {
	stored := make([]model.Email, 0, len(batch))
	var add []model.Email
	for _, m := range batch {
		m = e.admit(m)
		if e.localUnread[m.ID] {
			m.IsRead = false
		}
		if i, ok := e.pos(m.ID); ok {
			if old := e.emails[i]; old.HasContent && !m.HasContent && m.Problem == "" {
				old.IsRead = m.IsRead
				m = old
			}
			e.emails[i] = m
		} else {
			add = append(add, m)
		}
		stored = append(stored, m)
	}
	sort.SliceStable(add, func(i, j int) bool { return add[i].ReceivedAt.After(add[j].ReceivedAt) })
	if n := len(e.emails); n == 0 || len(add) == 0 || !add[0].ReceivedAt.After(e.emails[n-1].ReceivedAt) {
		// The usual case: the list is read newest first.
		e.emails = append(e.emails, add...)
	} else {
		out := make([]model.Email, 0, len(e.emails)+len(add))
		old := e.emails
		for _, m := range add {
			k := sort.Search(len(old), func(i int) bool { return old[i].ReceivedAt.Before(m.ReceivedAt) })
			out = append(append(out, old[:k]...), m)
			old = old[k:]
		}
		e.emails = append(out, old...)
	}
	e.reindex()
	return stored
}
