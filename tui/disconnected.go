package tui

import (
	"context"
	"errors"

	"sandview/client"
	"sandview/model"
	"sandview/tui/feed"
)

// errNoService is returned when the program runs without a client.
var errNoService = errors.New("no service connected")

// disconnected is the service of a program started without a client: it
// holds no inboxes and every call fails clearly.
type disconnected struct{}

func (disconnected) Inboxes() []model.Inbox { return nil }
func (disconnected) CreateInbox(context.Context, client.CreateInboxOptions) (model.Inbox, error) {
	return model.Inbox{}, errNoService
}
func (disconnected) DeleteInbox(context.Context, string) error { return errNoService }
func (disconnected) ExportInbox(string, string) error          { return errNoService }
func (disconnected) ImportInbox(context.Context, string) (model.Inbox, error) {
	return model.Inbox{}, errNoService
}
func (disconnected) Emails(context.Context, string) ([]model.Email, error) { return nil, errNoService }
func (disconnected) Email(context.Context, string, string) (model.Email, error) {
	return model.Email{}, errNoService
}
func (disconnected) Raw(context.Context, string, string) ([]byte, error) { return nil, errNoService }
func (disconnected) MarkRead(context.Context, string, string) error      { return errNoService }
func (disconnected) DeleteEmail(context.Context, string, string) error   { return errNoService }
func (disconnected) Chaos(context.Context, string) (model.ChaosConfig, error) {
	return model.ChaosConfig{}, errNoService
}
func (disconnected) SetChaos(context.Context, string, model.ChaosConfig) (model.ChaosConfig, error) {
	return model.ChaosConfig{}, errNoService
}
func (disconnected) DisableChaos(context.Context, string) error { return errNoService }

func (disconnected) ListWebhooks(context.Context, string) (model.WebhookList, error) {
	return model.WebhookList{}, errNoService
}
func (disconnected) GetWebhook(context.Context, string, string) (model.Webhook, error) {
	return model.Webhook{}, errNoService
}
func (disconnected) CreateWebhook(context.Context, string, model.CreateWebhookRequest) (model.Webhook, error) {
	return model.Webhook{}, errNoService
}
func (disconnected) UpdateWebhook(context.Context, string, string, model.UpdateWebhookRequest) (model.Webhook, error) {
	return model.Webhook{}, errNoService
}
func (disconnected) DeleteWebhook(context.Context, string, string) error { return errNoService }
func (disconnected) TestWebhook(context.Context, string, string) (model.TestWebhookResponse, error) {
	return model.TestWebhookResponse{}, errNoService
}
func (disconnected) RotateWebhookSecret(context.Context, string, string) (model.RotateSecretResponse, error) {
	return model.RotateSecretResponse{}, errNoService
}
func (disconnected) WebhookTemplates(context.Context) (model.WebhookTemplates, error) {
	return model.WebhookTemplates{}, errNoService
}
func (disconnected) WebhookMetrics(context.Context) (model.WebhookMetrics, error) {
	return model.WebhookMetrics{}, errNoService
}

func (disconnected) Rescan(context.Context, bool) (bool, []string, error) { return false, nil, nil }
func (disconnected) DefaultDomain(context.Context) (string, error)        { return "", errNoService }
func (disconnected) CheckKey(context.Context) (bool, error)               { return false, errNoService }

// Subscribe fails: there is nothing to watch.
func (disconnected) Subscribe(feed.Receiver) (func(), error) { return nil, errNoService }
