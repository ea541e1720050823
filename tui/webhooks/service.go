package webhooks

import (
	"context"

	"sandview/model"
)

// Service is what the webhooks screen needs from the service; the client
// (*client.Client) has every method. Every call takes inbox "" for the
// global scope and an inbox address for the inbox scope.
type Service interface {
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
