package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// ErrStale refuses a Batch whose deliveries were rendered from webhooks
// that have changed since (Batch.CheckWebhooks).
var ErrStale = errors.New("store: webhooks changed since the deliveries were rendered")

// ErrInDoubt is returned by a shared store's Commit when the database's
// answer to the commit was lost and it could not be looked up in time:
// the commit may or may not have been made.
var ErrInDoubt = errors.New("store: the commit's outcome is unknown (the database's answer was lost)")

// ErrConflict is returned by a shared store's PutInbox when another inbox
// holds the address or the key (another replica created it).
var ErrConflict = errors.New("store: inbox address or key already in use")

// Cluster is what the processes on one store (replicas of PostgreSQL;
// a memory or bbolt store has one process) coordinate through: the
// cluster's secrets, leadership and the leader's periodic work (their
// change notices are every Store's Feed). ExpireInboxes, EnforceLimits
// and Unsigned cost the store no more than its inboxes (and the emails
// they return) when nothing has expired, nothing is over a limit and
// nothing is unsigned.
type Cluster interface {
	// Secret returns the secret called name, first storing generate's
	// value when there is none; created reports that this call stored it.
	// Concurrent callers all get the one value stored. A store of one
	// process keeps it for the process.
	Secret(ctx context.Context, name string, generate func() ([]byte, error)) (value []byte, created bool, err error)
	// Lead reports whether this process holds the cluster's leadership,
	// taking it when it is free. The leader keeps it until its connection
	// is lost or Close; the one process of a store always leads.
	Lead(ctx context.Context) (bool, error)
	// ExpireInboxes deletes the inboxes that expired by now, with their
	// emails, and returns them with their emails' IDs (ascending).
	ExpireInboxes(ctx context.Context, now time.Time) ([]ExpiredInbox, error)
	// EnforceLimits deletes the oldest emails (by ID) beyond maxPerInbox
	// per inbox, then beyond maxBytes of payloads (Email.Size) in all (0:
	// no limit), and returns them ordered by ID.
	EnforceLimits(ctx context.Context, maxPerInbox int, maxBytes int64) ([]EmailKey, error)
	// Unsigned lists up to limit emails with unsigned payloads stored
	// before olderThan ago: those left unsigned when a process stopped.
	Unsigned(ctx context.Context, olderThan time.Duration, limit int) ([]EmailKey, error)
}

// NoticeKind is what a Notice reports.
type NoticeKind uint8

// The notices of Feed.Listen.
const (
	// NoticeEmail: an email was stored (Key).
	NoticeEmail NoticeKind = iota + 1
	// NoticeEmailDeleted: an email was deleted (Key).
	NoticeEmailDeleted
	// NoticeInboxDeleted: an inbox was deleted or expired (Key.InboxHash).
	NoticeInboxDeleted
	// NoticeWebhooks: webhooks were created, changed or deleted.
	NoticeWebhooks
	// NoticeDeliveries: webhook deliveries were queued.
	NoticeDeliveries
	// NoticeResync: notices may have been missed (the connection was
	// lost); reload what is cached. Emails stored meanwhile follow as
	// NoticeEmail.
	NoticeResync
	// NoticeChaos: chaos acted on mail for an inbox (Key.InboxHash); Data
	// is the action, in the server's encoding.
	NoticeChaos
)

// Notice is one change another replica made.
type Notice struct {
	Kind NoticeKind
	Key  EmailKey
	Data []byte
}

// ExpiredInbox is an inbox ExpireInboxes deleted.
type ExpiredInbox struct {
	Inbox
	EmailIDs []string
}

// CompareKeys orders email keys by ID, then inbox hash (the order of
// EnforceLimits).
func CompareKeys(a, b EmailKey) int {
	if c := strings.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	return strings.Compare(a.InboxHash, b.InboxHash)
}

// UnsignedEmail is an email with unsigned payloads and when it was
// stored: what a Store's Unsigned chooses from.
type UnsignedEmail struct {
	Key      EmailKey
	StoredAt time.Time
}

// OldestUnsigned is Unsigned's answer from the emails found: the keys of
// the limit oldest, oldest first (ties by key).
func OldestUnsigned(found []UnsignedEmail, limit int) []EmailKey {
	slices.SortFunc(found, func(a, b UnsignedEmail) int {
		if c := a.StoredAt.Compare(b.StoredAt); c != 0 {
			return c
		}
		return CompareKeys(a.Key, b.Key)
	})
	out := make([]EmailKey, 0, min(len(found), limit))
	for _, f := range found[:min(len(found), limit)] {
		out = append(out, f.Key)
	}
	return out
}
