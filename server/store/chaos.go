package store

import (
	"context"
	"time"
)

// ChaosStore keeps each inbox's chaos config (chaos.md) and the
// greylisting state of chaos, so that replicas on one database share
// both. An inbox's config goes away with the inbox (DeleteInbox).
type ChaosStore interface {
	// ChaosConfig returns an inbox's config, in the server's encoding,
	// nil when it has none.
	ChaosConfig(ctx context.Context, hash string) ([]byte, error)
	// PutChaosConfig replaces an inbox's config; an unknown inbox is
	// ErrNotFound.
	PutChaosConfig(ctx context.Context, hash string, data []byte) error
	// GreylistAttempt counts one attempt of key at now, atomically: an
	// entry first seen more than window before now starts over; once the
	// count reaches maxAttempts the entry is forgotten and pass is true.
	// attempt is the count, this attempt included.
	GreylistAttempt(ctx context.Context, key string, now time.Time, window time.Duration, maxAttempts int) (attempt int, pass bool, err error)
	// SweepGreylist forgets the entries first seen before before.
	SweepGreylist(ctx context.Context, before time.Time) error
}

// MaxGreylistEntries bounds the greylisting state a store keeps: past it,
// the entries seen first are forgotten first.
const MaxGreylistEntries = 100000
