package store

import (
	"context"
	"time"
)

// Webhooks keeps the webhooks and their delivery queue, for the webhook
// engine of every server that uses the store (one, or each replica of a
// Shared store). Records and deliveries are the engine's own encoding;
// the store keeps what deliveries change (stats, the enabled flag, the
// queue's claims) in its own fields. A store of one server keeps claims
// in its process (a restart lets them lapse); the memory store loses the
// rest with the process too.
type Webhooks interface {
	// LoadWebhooks returns every webhook, oldest first, and the version of
	// the set (Batch.WebhookVersion): a change after the version was read
	// may already show in the rows.
	LoadWebhooks(ctx context.Context) ([]WebhookRow, uint64, error)
	// SaveWebhook creates or updates a webhook's record and enabled flag
	// (re-enabling resets its failure streak) and returns its creation
	// sequence number. Stats are never written: deliveries count them.
	SaveWebhook(ctx context.Context, row WebhookRow) (seq uint64, err error)
	// DeleteWebhook removes a webhook and its queued deliveries.
	DeleteWebhook(ctx context.Context, id string) error
	// EnqueueDeliveries queues deliveries, due at once unless Due is set.
	EnqueueDeliveries(ctx context.Context, ds []QueuedDelivery) error
	// ClaimDeliveries leases up to limit due deliveries to this replica
	// for lease (none another replica holds) and reports when the next
	// one not claimed falls due (zero: none waits).
	ClaimDeliveries(ctx context.Context, limit int, lease time.Duration) ([]QueuedDelivery, time.Time, error)
	// ReleaseDelivery gives up a claim so that any replica may take the
	// delivery at once.
	ReleaseDelivery(ctx context.Context, id string) error
	// DropDelivery removes a claimed delivery without counting it (its
	// webhook was disabled).
	DropDelivery(ctx context.Context, id string) error
	// FinishAttempt records an attempt's outcome on its webhook's stats
	// and either schedules the next attempt (retryAt set, while fewer than
	// maxRetries retries of the webhook wait) or ends the delivery; a
	// failed ending counts towards disabling the webhook after
	// disableAfter failures in a row. It returns the webhook as it now is
	// (ok false when it was deleted meanwhile).
	FinishAttempt(ctx context.Context, a Attempt) (row WebhookRow, ok bool, err error)
}

// WebhookRow is a stored webhook.
type WebhookRow struct {
	ID        string
	InboxHash string // "" for a global webhook
	Seq       uint64
	Record    []byte
	Enabled   bool
	Stats     WebhookStats
}

// WebhookStats are the delivery figures every replica updates.
type WebhookStats struct {
	Total, Successful, Failed int64
	ConsecutiveFailures       int
	LastDeliveryAt            time.Time // zero: none yet
	LastDeliveryOK            bool
}

// QueuedDelivery is a webhook delivery in the queue.
type QueuedDelivery struct {
	ID        string
	WebhookID string
	Seq       uint64
	Attempt   int
	Due       time.Time
	Pending   []byte
}

// Attempt is the outcome of one delivery attempt (FinishAttempt).
type Attempt struct {
	Delivery QueuedDelivery
	At       time.Time
	OK       bool
	// RetryAt schedules the next attempt of a failed one; zero ends the
	// delivery.
	RetryAt      time.Time
	MaxRetries   int
	DisableAfter int
}
