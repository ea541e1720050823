package tui

import (
	"context"
	"time"

	"sandview/model"
)

// createInboxInput is what the create-inbox form asks for.
type createInboxInput struct {
	TTL        time.Duration
	Address    string
	Encryption string // "", model.EncryptionEncrypted or model.EncryptionPlain
	EmailAuth  *bool
}

// service is everything the TUI needs from the service, keyed by inbox
// address. The client adapter in client_adapter.go implements it over
// *client.Client and keeps the keystore in step; tests may use fakes.
type service interface {
	Inboxes() []model.Inbox
	CreateInbox(ctx context.Context, in createInboxInput) (model.Inbox, error)
	DeleteInbox(ctx context.Context, address string) error
	ExportInbox(address, path string) error
	ImportInbox(ctx context.Context, path string) (model.Inbox, error)
	Emails(ctx context.Context, address string) ([]model.Email, error)
	Email(ctx context.Context, address, id string) (model.Email, error)
	Raw(ctx context.Context, address, id string) ([]byte, error)
	MarkRead(ctx context.Context, address, id string) error
	DeleteEmail(ctx context.Context, address, id string) error
	SyncStatus(ctx context.Context, address string) (model.SyncStatus, error)
	webhookService
}
