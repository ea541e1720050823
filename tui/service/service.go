// Package service is the terminal UI's one seam to the email sandbox
// service: the Service interface that the root model and both screens
// call, and its implementation over *client.Client and the keystore
// (FromClient). Tests implement Service with tuitest.Service.
//
// Calls fail with the client's typed errors (client/errors.go), on which
// the screens decide with errors.As and errors.Is, never on a status code
// or an error's text. Without a client every call fails with
// client.ErrNoService.
package service

import (
	"context"

	"sandview/client"
	"sandview/model"
	"sandview/tui/feed"
)

// Service is everything the TUI needs from the service. Inbox and mail
// calls are keyed by inbox address; webhook calls take inbox "" for the
// global scope and an inbox address for the inbox scope.
type Service interface {
	// Inboxes are the inboxes loaded (from the keystore, or created or
	// imported here), in load order.
	Inboxes() []model.Inbox
	// CreateInbox creates an inbox and keeps it in the keystore; an
	// address taken by a plain inbox (a shared catch-all) attaches that
	// one instead.
	CreateInbox(ctx context.Context, opts client.CreateInboxOptions) (model.Inbox, error)
	DeleteInbox(ctx context.Context, address string) error
	ExportInbox(address, path string) error
	ImportInbox(ctx context.Context, path string) (model.Inbox, error)
	// Rescan reconnects the delivery stream now if it waits to, and loads
	// the inboxes other programs saved to the keystore. Unless force, it
	// does so only when the keystore changed (changed says whether it
	// did); vanished lists the loaded inboxes whose keystore files are
	// gone (another program deleted them, perhaps on the server).
	Rescan(ctx context.Context, force bool) (changed bool, vanished []string, err error)
	// DefaultDomain is the domain a bare local part of a new address gets.
	DefaultDomain(ctx context.Context) (string, error)

	// Emails lists an inbox with its content (the attachments' bytes left
	// out, their size kept), newest first.
	Emails(ctx context.Context, address string) ([]model.Email, error)
	// EachEmail lists an inbox as Emails does, passing each email (and
	// its failure to open) to fn as soon as it and those before it are
	// opened, in the server's order, newest first; an error of fn ends
	// the listing with it.
	EachEmail(ctx context.Context, address string, fn func(e model.Email, openErr error) error) error
	Email(ctx context.Context, address, id string) (model.Email, error)
	Raw(ctx context.Context, address, id string) ([]byte, error)
	MarkRead(ctx context.Context, address, id string) error
	DeleteEmail(ctx context.Context, address, id string) error

	// Chaos, SetChaos and DisableChaos read and change an inbox's chaos
	// (fault injection); a server with chaos switched off answers
	// *client.ChaosDisabledError.
	Chaos(ctx context.Context, address string) (model.ChaosConfig, error)
	SetChaos(ctx context.Context, address string, cfg model.ChaosConfig) (model.ChaosConfig, error)
	DisableChaos(ctx context.Context, address string) error

	ListWebhooks(ctx context.Context, inbox string) (model.WebhookList, error)
	GetWebhook(ctx context.Context, inbox, id string) (model.Webhook, error)
	CreateWebhook(ctx context.Context, inbox string, req model.CreateWebhookRequest) (model.Webhook, error)
	UpdateWebhook(ctx context.Context, inbox, id string, req model.UpdateWebhookRequest) (model.Webhook, error)
	DeleteWebhook(ctx context.Context, inbox, id string) error
	TestWebhook(ctx context.Context, inbox, id string) (model.TestWebhookResponse, error)
	RotateWebhookSecret(ctx context.Context, inbox, id string) (model.RotateSecretResponse, error)
	WebhookTemplates(ctx context.Context) (model.WebhookTemplates, error)
	WebhookMetrics(ctx context.Context) (model.WebhookMetrics, error)

	// Subscribe starts the live feed (feed.Source).
	Subscribe(recv feed.Receiver) (stop func(), err error)
	// CheckKey says whether the server accepts the API key.
	CheckKey(ctx context.Context) (bool, error)
}
