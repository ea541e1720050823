package store

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is returned for an inbox or email the store does not hold.
var ErrNotFound = errors.New("store: not found")

// ErrClosed is returned by a store after Close.
var ErrClosed = errors.New("store: closed")

// Inbox is a stored inbox. Address is lowercased; Hash names it in the API
// and the event stream.
type Inbox struct {
	Address   string `json:"address"`
	Hash      string `json:"hash"`
	Encrypted bool   `json:"encrypted"`
	EmailAuth bool   `json:"emailAuth"`
	// ClientKemPk is the inbox's ML-KEM-768 public key (encrypted inboxes only).
	ClientKemPk []byte    `json:"clientKemPk,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	ExpiresAt   time.Time `json:"expiresAt"`
	// Owner is the ID of the principal that created it (see
	// server/access); "" when it was created with the server's API key.
	Owner string `json:"owner,omitempty"`
}

// Parts is a set of an email's content payloads.
type Parts uint8

// The content payloads.
const (
	PartParsed Parts = 1 << iota
	PartRaw
)

// Email is a stored email. For a plain inbox Metadata and Parsed are JSON and
// Raw is the RFC 5322 message; for an encrypted inbox each is an encrypted
// payload in a form the server chooses (the store does not look inside).
// The byte slices are never modified after Commit, so readers may share
// them, but for the signature of an Unsigned payload: no one reads that
// payload but its signer, which holds the email and signs it where it lies
// (crypto.Sealer.SignInPlace) before SetSigned records it signed.
// Payloads laid out as Layout says, each slice's capacity running to the
// end of its allocation, are kept as they are by the memory store (and so
// are those of a Signed with Metadata); others it copies.
type Email struct {
	ID         string
	InboxHash  string
	ReceivedAt time.Time
	IsRead     bool
	// Unsigned names the encrypted payloads whose signature is still a
	// placeholder of the final size; SetSigned replaces them.
	Unsigned Parts
	Metadata []byte
	Parsed   []byte
	Raw      []byte
}

// Size is the number of payload bytes the email occupies (the figure storage
// limits count).
func (e *Email) Size() int64 {
	return int64(len(e.Metadata) + len(e.Parsed) + len(e.Raw))
}

// Signed is a SetSigned change to one email: the payloads named by Parts
// (parsed, raw or both) get their signed form and leave the email's
// Unsigned set.
type Signed struct {
	Key         EmailKey
	Parts       Parts
	Parsed, Raw []byte
	// Metadata, when set, is the email's metadata payload as it was, and
	// Parsed and Raw are both set (one not in Parts as it was): when the
	// three are the very slices the memory store handed out, signed where
	// they lie (see Email), it keeps them instead of copying them. Other
	// stores need not read it.
	Metadata []byte
}

// Apply makes the change to e.
func (c Signed) Apply(e *Email) {
	if c.Parts&PartParsed != 0 {
		e.Parsed = c.Parsed
	}
	if c.Parts&PartRaw != 0 {
		e.Raw = c.Raw
	}
	e.Unsigned &^= c.Parts
}

// WhereStored reports whether c's payloads are e's own (the same bytes,
// not copies of them).
func (c Signed) WhereStored(e *Email) bool {
	same := func(a, b []byte) bool {
		return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
	}
	return c.Metadata != nil && same(c.Metadata, e.Metadata) && same(c.Parsed, e.Parsed) && same(c.Raw, e.Raw)
}

// EmailKey names one email.
type EmailKey struct {
	InboxHash string
	ID        string
}

// Page selects part of an inbox's list: up to Limit emails (0: no limit),
// newest first, starting with the newest email older than the one with ID
// Before ("": the newest of all). Paging by the last ID seen is stable
// while mail arrives, since new emails sort after every listed one.
type Page struct {
	Before string
	Limit  int
}

// Batch is one atomic change: emails to add and emails to remove, and
// webhook deliveries to queue with them.
type Batch struct {
	Put        []*Email
	Delete     []EmailKey
	Deliveries []QueuedDelivery
	// CheckWebhooks makes the store refuse the batch with ErrStale
	// unless the webhooks are still at WebhookVersion (the deliveries were
	// rendered from them; none at all may be a stale answer too).
	CheckWebhooks  bool
	WebhookVersion uint64
	// Retry marks a batch that may be committed already: an earlier
	// Commit of it failed with ErrInDoubt. A shared store commits it only
	// when its emails are absent, and then with its notices; a local store
	// (never in doubt) commits it as any other.
	Retry bool
}

// Store holds inboxes, emails, webhooks with their delivery queue and
// chaos state. Implementations are safe for concurrent use.
// Email IDs sort in arrival order (the server makes them so); lists come
// newest first.
type Store interface {
	InboxStore
	EmailStore
	ChaosStore
	Webhooks
	Feed
	Cluster

	// Ping reports whether the store answers (readiness): ErrClosed once
	// it is closed or has stopped on a failure.
	Ping(ctx context.Context) error
	// Close releases the store; later calls fail with ErrClosed.
	Close() error
}

// InboxStore is the inbox role of a Store.
type InboxStore interface {
	// PutInbox adds or replaces an inbox.
	PutInbox(ctx context.Context, inbox Inbox) error
	// DeleteInbox removes an inbox and all its emails; an unknown inbox is
	// not an error.
	DeleteInbox(ctx context.Context, hash string) error
	// Inboxes lists every stored inbox.
	Inboxes(ctx context.Context) ([]Inbox, error)
	// Inbox returns the inbox with that hash, or ErrNotFound.
	Inbox(ctx context.Context, hash string) (Inbox, error)
	// InboxByAddress returns the inbox with that (lowercased) address, or
	// ErrNotFound.
	InboxByAddress(ctx context.Context, address string) (Inbox, error)
}

// EmailStore is the email role of a Store.
type EmailStore interface {
	// Commit applies a batch atomically and, for a durable store, durably.
	// Putting into an unknown inbox fails the whole batch with ErrNotFound;
	// deleting an unknown email is not an error.
	Commit(ctx context.Context, b Batch) error
	// DeleteEmail removes one email, or returns ErrNotFound.
	DeleteEmail(ctx context.Context, key EmailKey) error
	// MarkRead sets an email's read flag, or returns ErrNotFound.
	MarkRead(ctx context.Context, key EmailKey) error
	// SetSigned applies the changes in one write; emails deleted meanwhile
	// are skipped.
	SetSigned(ctx context.Context, changes []Signed) error

	// Email returns one email with all its content, or ErrNotFound.
	Email(ctx context.Context, key EmailKey) (*Email, error)
	// Emails lists a page of an inbox's emails, newest first; without
	// content, Parsed and Raw are left nil. An unknown inbox gives
	// ErrNotFound.
	Emails(ctx context.Context, hash string, withContent bool, page Page) ([]*Email, error)
	// EmailHeads returns the listed emails without content (those gone are
	// left out), in ascending ID order.
	EmailHeads(ctx context.Context, keys []EmailKey) ([]*Email, error)
	// IDs lists an inbox's email IDs in ascending order.
	IDs(ctx context.Context, hash string) ([]string, error)
	// LastEmailID returns the largest ID of the stored emails ("" when
	// there are none), at a cost of the inboxes, not of the emails.
	LastEmailID(ctx context.Context) (string, error)
}
