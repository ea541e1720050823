package tui

import (
	"context"

	"sandview/model"
)

// webhookService is what the webhooks view needs from the service. Every
// call takes inbox "" for the global scope and an inbox address for the
// inbox scope.
type webhookService interface {
	ListWebhooks(ctx context.Context, inbox string) (model.WebhookList, error)
	GetWebhook(ctx context.Context, inbox, id string) (model.Webhook, error)
	CreateWebhook(ctx context.Context, inbox string, req model.CreateWebhookRequest) (model.Webhook, error)
	UpdateWebhook(ctx context.Context, inbox, id string, req model.UpdateWebhookRequest) (model.Webhook, error)
	DeleteWebhook(ctx context.Context, inbox, id string) error
	TestWebhook(ctx context.Context, inbox, id string) (model.TestWebhookResponse, error)
	RotateWebhookSecret(ctx context.Context, inbox, id string) (model.RotateSecretResponse, error)
	WebhookTemplates(ctx context.Context) (model.WebhookTemplates, error)
	WebhookMetrics(ctx context.Context) (model.WebhookMetrics, error)
}

func (s clientService) ListWebhooks(ctx context.Context, inbox string) (model.WebhookList, error) {
	return s.c.ListWebhooks(ctx, inbox)
}

func (s clientService) GetWebhook(ctx context.Context, inbox, id string) (model.Webhook, error) {
	return s.c.GetWebhook(ctx, inbox, id)
}

func (s clientService) CreateWebhook(ctx context.Context, inbox string, req model.CreateWebhookRequest) (model.Webhook, error) {
	return s.c.CreateWebhook(ctx, inbox, req)
}

func (s clientService) UpdateWebhook(ctx context.Context, inbox, id string, req model.UpdateWebhookRequest) (model.Webhook, error) {
	return s.c.UpdateWebhook(ctx, inbox, id, req)
}

func (s clientService) DeleteWebhook(ctx context.Context, inbox, id string) error {
	return s.c.DeleteWebhook(ctx, inbox, id)
}

func (s clientService) TestWebhook(ctx context.Context, inbox, id string) (model.TestWebhookResponse, error) {
	return s.c.TestWebhook(ctx, inbox, id)
}

func (s clientService) RotateWebhookSecret(ctx context.Context, inbox, id string) (model.RotateSecretResponse, error) {
	return s.c.RotateWebhookSecret(ctx, inbox, id)
}

func (s clientService) WebhookTemplates(ctx context.Context) (model.WebhookTemplates, error) {
	return s.c.WebhookTemplates(ctx)
}

func (s clientService) WebhookMetrics(ctx context.Context) (model.WebhookMetrics, error) {
	return s.c.WebhookMetrics(ctx)
}

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
