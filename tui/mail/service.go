package mail

import (
	"context"

	"sandview/client"
	"sandview/model"
)

// Service is everything the mail screen needs from the service, keyed by
// inbox address. The TUI implements it over *client.Client, keeping the
// keystore in step.
type Service interface {
	Inboxes() []model.Inbox
	CreateInbox(ctx context.Context, opts client.CreateInboxOptions) (model.Inbox, error)
	DeleteInbox(ctx context.Context, address string) error
	ExportInbox(address, path string) error
	ImportInbox(ctx context.Context, path string) (model.Inbox, error)
	Emails(ctx context.Context, address string) ([]model.Email, error)
	Email(ctx context.Context, address, id string) (model.Email, error)
	Raw(ctx context.Context, address, id string) ([]byte, error)
	MarkRead(ctx context.Context, address, id string) error
	DeleteEmail(ctx context.Context, address, id string) error
	// Rescan reconnects the delivery stream now if it waits to, and loads
	// the inboxes other programs saved to the keystore. Unless force, it
	// does so only when the keystore changed (changed says whether it
	// did); vanished lists the loaded inboxes whose keystore files are
	// gone (another program deleted them, perhaps on the server).
	Rescan(ctx context.Context, force bool) (changed bool, vanished []string, err error)
	// Chaos, SetChaos and DisableChaos read and change an inbox's chaos
	// (fault injection); a server with chaos switched off answers
	// *client.ChaosDisabledError.
	Chaos(ctx context.Context, address string) (model.ChaosConfig, error)
	SetChaos(ctx context.Context, address string, cfg model.ChaosConfig) (model.ChaosConfig, error)
	DisableChaos(ctx context.Context, address string) error
	// DefaultDomain is the domain a bare local part of a new address gets.
	DefaultDomain(ctx context.Context) (string, error)
}
