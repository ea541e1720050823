package watch

import (
	"context"
	"io"
	"time"

	"sandview/model"
)

// The seam: what the engine needs from the client, and what it hands
// back.

// Client is what the engine needs from the client as a whole.
type Client interface {
	// OpenStream opens the event stream for the inbox hashes, asking for
	// the deletion notices (notice.go). The stream
	// lives until ctx ends or the body is closed; opening is bounded by the
	// client's connect timeout. Errors carry the client's error classes.
	OpenStream(ctx context.Context, hashes []string) (io.ReadCloser, error)
	// ReportSyncError reports a failed sync, fetch, poll or seeding. The
	// Report methods drop what arrives after the client is closed.
	ReportSyncError(err error)
	// ReportStreamError reports a failed event stream or an unreadable event.
	ReportStreamError(err error)
	// ReportFallback reports that polling takes over from the event stream,
	// because of cause.
	ReportFallback(cause error)
	// InboxGone reports whether err says the server does not know the
	// inbox a request named (deleted, expired, or lost in a restart).
	InboxGone(err error) bool
	// StreamRefused reports whether err is an answer to opening the event
	// stream that retrying will not change: a 4xx other than 408 and 429
	// (a wrong key, or no inbox hash the server knows).
	StreamRefused(err error) bool
}

// Inbox is one watched inbox as the engine uses it.
type Inbox interface {
	Hash() string
	Address() string
	// ListIDs lists the ids of the inbox's emails, newest first, without
	// opening them; only the records whose id meta accepts (meta may be
	// nil) have their metadata opened (HasContent false), returned by id
	// (a record whose metadata cannot be opened is left out).
	ListIDs(ctx context.Context, meta func(id string) bool) ([]string, map[string]model.Email, error)
	// Fetch returns an email with its full content, opened. An email that
	// cannot be opened comes back with Problem set, and the error. gone
	// says the server no longer has the email.
	Fetch(ctx context.Context, id string) (e model.Email, gone bool, err error)
	// OpenNotification decodes a new-email notification of the event
	// stream (metadata only).
	OpenNotification(ev model.StreamEvent) (model.Email, error)
	// Poll asks once, without retries, for the inbox's emails hash.
	Poll(ctx context.Context) (Poll, error)
}

// Poll is the outcome of one poll: the emails hash, or how the failure is
// treated.
type Poll struct {
	EmailsHash string
	// RateLimited: the server refused for its rate limit; every poller
	// pauses for RetryAfter (at least one polling interval).
	RateLimited bool
	RetryAfter  time.Duration
}

// Mode is how the engine finds new mail.
type Mode int

// Modes of the client contract's strategies sse, auto and polling.
const (
	ModeStream Mode = iota
	ModeAuto
	ModePolling
)

// Config tunes an engine (the client's options).
type Config struct {
	Mode                     Mode
	PollingInterval          time.Duration
	PollingMaxBackoff        time.Duration
	PollingBackoffMultiplier float64
	PollingJitterFactor      float64
	ReconnectInterval        time.Duration
	MaxReconnectAttempts     int
	// MaxReconnectDelay caps the doubling reconnect delay; zero means an
	// hour.
	MaxReconnectDelay time.Duration
	// ReconnectJitter takes up to this share (0 to 1) off each reconnect
	// delay at random, so clients that lost the same server do not all
	// come back at once.
	ReconnectJitter float64
	// PollBudget is how many requests a second, and how many at once, all
	// pollers may make together; zero means 8.
	PollBudget float64
}

// Callbacks are what one subscriber of a watched inbox is told.
type Callbacks struct {
	Deliver func(model.Email) // must not block
	Ended   func()            // the inbox stopped being loaded; may be nil
	Ready   func()            // the watch is seeded: delivery starts; may be nil
	// Gone is called instead of Ended when the watch ended because the
	// server no longer knows the inbox (err says how that was learnt);
	// may be nil, and then Ended is called.
	Gone func(err error)
	// Deleted is called with the id of an email of the inbox deleted on
	// the server, by anyone (a deletion notice of the event stream: only
	// while streaming, from a sandview server); may be nil. It must not
	// block.
	Deleted func(emailID string)
	// Chaos is called with each chaos action the server applied to mail
	// for the inbox (a chaos notice of the event stream: only while
	// streaming, from a sandview server); may be nil. It must not block.
	Chaos func(model.ChaosAction)
	// MetadataOnly: the subscriber takes new mail with its metadata only
	// (HasContent false): as the event stream's notification has it, or,
	// for mail a sync finds, as the listing has it; it fetches the content
	// when it needs it, so a burst costs no fetch. The email is fetched in
	// full when any subscriber of its inbox wants the content.
	MetadataOnly bool
}

// Watch pairs an inbox with a subscriber for its new mail.
type Watch struct {
	Inbox     Inbox
	Callbacks Callbacks
}
