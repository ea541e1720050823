package model

import "time"

// Encryption modes an inbox can be created with.
const (
	EncryptionEncrypted = "encrypted"
	EncryptionPlain     = "plain"
)

// Inbox TTL bounds of the contract, in seconds.
const (
	MinTTLSeconds     = 60
	MaxTTLSeconds     = 604800
	DefaultTTLSeconds = 3600
)

// Inbox describes a temporary mailbox as the service reports it.
type Inbox struct {
	EmailAddress string    `json:"emailAddress"`
	ExpiresAt    time.Time `json:"expiresAt"`
	InboxHash    string    `json:"inboxHash"`
	Encrypted    bool      `json:"encrypted"`
	EmailAuth    bool      `json:"emailAuth"`
	ServerSigPk  string    `json:"serverSigPk,omitempty"`
}

// IsExpired reports whether the inbox's TTL has run out at now.
func (i Inbox) IsExpired(now time.Time) bool {
	return !i.ExpiresAt.IsZero() && !now.Before(i.ExpiresAt)
}

// TimeLeft is the time until expiry at now, never negative.
func (i Inbox) TimeLeft(now time.Time) time.Duration {
	if left := i.ExpiresAt.Sub(now); left > 0 {
		return left
	}
	return 0
}

// CreateInboxRequest is the body of POST /api/inboxes. Only fields the
// contract names are sent; empty ones are omitted.
type CreateInboxRequest struct {
	ClientKemPk  string `json:"clientKemPk,omitempty"`
	TTL          int    `json:"ttl,omitempty"`
	EmailAddress string `json:"emailAddress,omitempty"`
	Encryption   string `json:"encryption,omitempty"`
	EmailAuth    *bool  `json:"emailAuth,omitempty"`
}

// CreateInboxResponse is the answer to POST /api/inboxes.
type CreateInboxResponse = Inbox

// DeleteAllResponse is the answer to DELETE /api/inboxes.
type DeleteAllResponse struct {
	Deleted int `json:"deleted"`
}

// SyncStatus is the answer to GET /api/inboxes/{email}/sync.
type SyncStatus struct {
	EmailCount int    `json:"emailCount"`
	EmailsHash string `json:"emailsHash"`
}

// CheckKeyResponse is the answer to GET /api/check-key.
type CheckKeyResponse struct {
	OK bool `json:"ok"`
}
