package tui

import (
	"time"

	"sandview/model"
)

// tickMsg drives countdowns and expires transient status messages.
type tickMsg time.Time

// inboxesLoadedMsg carries the inboxes the client holds.
type inboxesLoadedMsg struct{ inboxes []model.Inbox }

// emailsLoadedMsg carries every email of an inbox (newest first). err joins
// per-email failures (the emails are still listed, with Problem set) or
// reports that the list could not be fetched (emails nil).
type emailsLoadedMsg struct {
	address string
	emails  []model.Email
	err     error
	// live is set when the feed found the emails: the ones not seen before
	// are flagged as new.
	live bool
}

// emailLoadedMsg carries the full content of one email.
type emailLoadedMsg struct {
	address string
	email   model.Email
	err     error
}

// rawLoadedMsg carries the RFC 5322 source of an email.
type rawLoadedMsg struct {
	address, id string
	raw         []byte
	err         error
}

// inboxCreatedMsg and inboxImportedMsg report a new inbox in the client.
type inboxCreatedMsg struct {
	inbox model.Inbox
	err   error
}

type inboxImportedMsg struct {
	inbox model.Inbox
	path  string
	err   error
}

// inboxDeletedMsg reports the end of an inbox deletion.
type inboxDeletedMsg struct {
	address string
	err     error
}

// emailDeletedMsg reports the end of an email deletion.
type emailDeletedMsg struct {
	address, id string
	err         error
}

// markedReadMsg reports the end of PATCH read.
type markedReadMsg struct {
	address, id string
	err         error
}

// statusMsg is a transient message for the status bar (saved, copied,
// errors of background work).
type statusMsg struct {
	text  string
	level statusLevel
}

// connStateMsg is a change of the delivery connection.
type connStateMsg connState

// feedMsg wraps a message that came from the live feed; the model asks for
// the next one after handling it.
type feedMsg struct{ msg any }
