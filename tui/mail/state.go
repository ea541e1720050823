package mail

import (
	"slices"
	"sort"
	"strings"
	"time"

	"sandview/model"
	"sandview/tui/mail/reader"
)

// inboxEntry is one inbox and what the screen knows of its emails.
type inboxEntry struct {
	info   model.Inbox
	emails []model.Email  // newest first, sanitized
	index  map[string]int // email id -> rank from the oldest (pos gives the position)
	// spare is the array emails is the tail of while mail arrives in
	// front of it (prepend).
	spare   []model.Email
	unread  int
	loaded  bool // the list was fetched at least once
	loading bool
	loadErr string
	// chaos is the inbox's chaos config as read at chaosRead (nil: not
	// known); an active one shows a badge.
	chaos     *model.ChaosConfig
	chaosRead time.Time
	// gone says why the server no longer knows the inbox ("" while it
	// does): its watch ended, what it held stays readable.
	gone string
	// marked holds the ids of the emails marked for a bulk action.
	marked map[string]bool
	// version is the state's change count, which every change of the
	// emails moves on.
	version *int
	// contentAsked is set once the inbox was listed again because a search
	// needed content its list lacked; contentPending while that listing
	// runs.
	contentAsked, contentPending bool
	// stream is the streamed first listing while it runs (list_stream.go).
	stream *listStream
	// fresh marks emails that arrived while the inbox was open.
	fresh map[string]bool
	// localUnread marks emails the user marked unread: the service only
	// knows "read", so this is kept here and wins over the server's flag.
	localUnread map[string]bool
	// unfetched holds the emails whose content a fill could not fetch
	// (fill.go): not asked again on their own.
	unfetched map[string]bool
}

// mailState is what the mail screen knows: the inboxes in display order. version counts the changes
// to the inboxes and their emails, so that what is derived from all of
// them (the in:all listing) is made again only when they changed.
type mailState struct {
	entries []*inboxEntry
	version int
}

// find returns the entry of address (case-insensitive).
func (s *mailState) find(address string) (*inboxEntry, int) {
	for i, e := range s.entries {
		if strings.EqualFold(e.info.EmailAddress, address) {
			return e, i
		}
	}
	return nil, -1
}

// setInboxes replaces the inbox list, keeping what is known of inboxes that
// stay.
func (s *mailState) setInboxes(inboxes []model.Inbox) {
	entries := make([]*inboxEntry, 0, len(inboxes))
	for _, in := range inboxes {
		in = sanitizeInbox(in)
		if old, _ := s.find(in.EmailAddress); old != nil {
			old.info = in
			entries = append(entries, old)
			continue
		}
		entries = append(entries, s.newEntry(in))
	}
	s.entries = entries
	s.version++
}

// add appends an inbox unless it is already listed, and returns its entry.
func (s *mailState) add(in model.Inbox) *inboxEntry {
	in = sanitizeInbox(in)
	if old, _ := s.find(in.EmailAddress); old != nil {
		old.info = in
		return old
	}
	e := s.newEntry(in)
	s.entries = append(s.entries, e)
	s.version++
	return e
}

// remove drops an inbox.
func (s *mailState) remove(address string) {
	if _, i := s.find(address); i >= 0 {
		s.entries = append(s.entries[:i:i], s.entries[i+1:]...)
		s.version++
	}
}

func (s *mailState) newEntry(in model.Inbox) *inboxEntry {
	return &inboxEntry{info: in, index: map[string]int{}, fresh: map[string]bool{}, localUnread: map[string]bool{}, marked: map[string]bool{}, unfetched: map[string]bool{},
		version: &s.version}
}

// admit makes an email fit for the state: sanitized, and carrying its
// inbox's hash (the address when the hash is unknown), which keys it in
// the search index.
func (e *inboxEntry) admit(m model.Email) model.Email {
	m = sanitizeEmail(reader.Bounded(m))
	if m.InboxHash == "" {
		m.InboxHash = e.info.InboxHash
	}
	if m.InboxHash == "" {
		m.InboxHash = e.info.EmailAddress
	}
	return m
}

// totals counts emails and unread emails over all inboxes.
func (s *mailState) totals() (emails, unread int) {
	for _, e := range s.entries {
		emails += len(e.emails)
		unread += e.unread
	}
	return emails, unread
}

// setEmails replaces the email list of an inbox with a fresh listing.
// Content already loaded is kept, local unread marks win, and emails not
// seen before are flagged fresh when the inbox had been loaded already.
func (e *inboxEntry) setEmails(list []model.Email) {
	wasLoaded := e.loaded
	out := make([]model.Email, 0, len(list))
	for _, m := range list {
		m = e.admit(m)
		if i, ok := e.pos(m.ID); ok {
			old := e.emails[i]
			if old.HasContent && !m.HasContent && m.Problem == "" {
				isRead := m.IsRead
				m = old
				m.IsRead = isRead
			}
		} else if wasLoaded {
			e.fresh[m.ID] = true
		}
		if e.localUnread[m.ID] {
			m.IsRead = false
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ReceivedAt.After(out[j].ReceivedAt) })
	e.emails = out
	e.loaded = true
	e.loading, e.contentPending = false, false
	e.reindex()
}

// addEmail inserts one email (a live notification) unless known; it is
// flagged fresh.
func (e *inboxEntry) addEmail(m model.Email) { e.addEmails([]model.Email{m}) }

// addEmails inserts live notifications unless known, each flagged fresh,
// in one pass over the list however many arrived: the list stays newest
// first, and an email goes before those received at the same time, as
// if each had been added in turn.
func (e *inboxEntry) addEmails(ms []model.Email) {
	var add []model.Email
	seen := map[string]bool{}
	for _, m := range ms {
		m = e.admit(m)
		if _, ok := e.index[m.ID]; ok || seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		e.fresh[m.ID] = true
		add = append(add, m)
	}
	if len(add) == 0 {
		return
	}
	slices.Reverse(add) // the latest arrival first among equals
	sort.SliceStable(add, func(i, j int) bool { return add[i].ReceivedAt.After(add[j].ReceivedAt) })
	if n := len(e.emails); n == 0 || !e.emails[0].ReceivedAt.After(add[len(add)-1].ReceivedAt) {
		// All newer than the list (a burst): they go in front, the
		// others keep their ranks in the index.
		e.prepend(add)
		*e.version++
		for i, m := range add {
			e.index[m.ID] = len(e.emails) - 1 - i
			if !m.IsRead {
				e.unread++
			}
		}
		return
	}
	out := make([]model.Email, 0, len(e.emails)+len(add))
	old := e.emails
	for _, m := range add {
		n := sort.Search(len(old), func(i int) bool { return !old[i].ReceivedAt.After(m.ReceivedAt) })
		out = append(out, old[:n]...)
		out = append(out, m)
		old = old[n:]
	}
	e.emails = append(out, old...)
	e.reindex()
}

// prepend puts add in front of the list in time proportional to
// len(add), not to the list's length: the list is the tail of a backing
// array (e.spare) that keeps room in front of it, made anew (with room
// as large as the list) when it has too little or the list was replaced.
func (e *inboxEntry) prepend(add []model.Email) {
	n, k := len(e.emails), len(add)
	buf := e.spare
	if n == 0 || len(buf)-n < k || &buf[len(buf)-n] != &e.emails[0] {
		room := max(k, n, 64)
		buf = make([]model.Email, room+n)
		copy(buf[room:], e.emails)
	}
	start := len(buf) - n - k
	copy(buf[start:], add)
	e.emails = buf[start:]
	e.spare = buf
}

// replaceEmail stores the full content of an email already listed.
func (e *inboxEntry) replaceEmail(m model.Email) {
	m = e.admit(m)
	i, ok := e.pos(m.ID)
	if !ok {
		e.addEmail(m)
		return
	}
	if e.localUnread[m.ID] {
		m.IsRead = false
	}
	e.emails[i] = m
	e.recount()
}

// removeEmail drops an email.
func (e *inboxEntry) removeEmail(id string) {
	i, ok := e.pos(id)
	if !ok {
		return
	}
	e.emails = append(e.emails[:i:i], e.emails[i+1:]...)
	delete(e.fresh, id)
	delete(e.localUnread, id)
	delete(e.marked, id)
	e.reindex()
}

// setRead changes the read flag of an email; unread is remembered locally.
func (e *inboxEntry) setRead(id string, read bool) {
	i, ok := e.pos(id)
	if !ok {
		return
	}
	e.emails[i].IsRead = read
	if read {
		delete(e.localUnread, id)
	} else {
		e.localUnread[id] = true
	}
	delete(e.fresh, id)
	e.recount()
}

// pos is the position of the email with id in the list. The index keeps
// each email's rank from the oldest, which mail arriving in front leaves
// as it was.
func (e *inboxEntry) pos(id string) (int, bool) {
	r, ok := e.index[id]
	return len(e.emails) - 1 - r, ok
}

// email returns the email with id.
func (e *inboxEntry) email(id string) (model.Email, bool) {
	if i, ok := e.pos(id); ok {
		return e.emails[i], true
	}
	return model.Email{}, false
}

func (e *inboxEntry) reindex() {
	e.index = make(map[string]int, len(e.emails))
	for i, m := range e.emails {
		e.index[m.ID] = len(e.emails) - 1 - i
	}
	for id := range e.marked {
		if _, ok := e.index[id]; !ok {
			delete(e.marked, id)
		}
	}
	e.recount()
}

func (e *inboxEntry) recount() {
	*e.version++
	e.unread = 0
	for _, m := range e.emails {
		if !m.IsRead {
			e.unread++
		}
	}
}

// liveAddresses lists the addresses of the inboxes not expired at now
// and not gone from the server.
func (s *mailState) liveAddresses(now time.Time) []string {
	var out []string
	for _, e := range s.entries {
		if !e.info.IsExpired(now) && e.gone == "" {
			out = append(out, e.info.EmailAddress)
		}
	}
	return out
}

// loading reports whether an inbox list is being fetched.
func (s *mailState) loading() bool {
	for _, e := range s.entries {
		if e.loading {
			return true
		}
	}
	return false
}

// markedCount counts the marked emails of every inbox.
func (s *mailState) markedCount() int {
	n := 0
	for _, e := range s.entries {
		n += len(e.marked)
	}
	return n
}

// clearMarks unmarks every email.
func (s *mailState) clearMarks() {
	for _, e := range s.entries {
		clear(e.marked)
	}
}

// target is an email an action applies to, with its inbox.
type target struct {
	entry *inboxEntry
	email model.Email
}

// markedTargets lists the marked emails of every inbox, newest first
// within each inbox, the inboxes in display order.
func (s *mailState) markedTargets() []target {
	var out []target
	for _, e := range s.entries {
		for _, m := range e.emails {
			if e.marked[m.ID] {
				out = append(out, target{entry: e, email: m})
			}
		}
	}
	return out
}

// toggleMark marks or unmarks an email.
func (e *inboxEntry) toggleMark(id string) {
	if e.marked[id] {
		delete(e.marked, id)
	} else {
		e.marked[id] = true
	}
}

// needsFetch reports whether an email must be fetched before it is shown
// in full: its content was not listed, or its attachments' bytes were
// left out of the list.
func needsFetch(m model.Email) bool {
	if !m.HasContent {
		return true
	}
	for _, a := range m.Attachments {
		if a.Content == nil && a.Size > 0 {
			return true
		}
	}
	return false
}
