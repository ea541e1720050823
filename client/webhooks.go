package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"sandview/model"
)

// Webhook calls take inboxEmail "" for the global scope and an inbox
// address for the inbox scope. Any 2xx answer is success (deployments
// answer 201 where the contract says 200).

// webhookPath is the path of the webhook collection or of one webhook
// (id != "") in a scope.
func webhookPath(inboxEmail, id string) string {
	p := "/api/webhooks"
	if inboxEmail != "" {
		p = inboxPath(inboxEmail) + "/webhooks"
	}
	if id != "" {
		p += "/" + url.PathEscape(id)
	}
	return p
}

// webhookNotFound keeps a 404 as *APIError, except on inbox routes where
// the server says the inbox is missing.
func webhookNotFound(inboxEmail string) notFoundFunc {
	if inboxEmail == "" {
		return nil
	}
	return func(status *APIError) error {
		if mentionsInbox(status) {
			return &InboxNotFoundError{Address: inboxEmail, status: status}
		}
		return status
	}
}

// WebhooksService makes the webhook calls (Client.Webhooks). The zero
// WebhooksService has no service: its calls fail with ErrNoService.
type WebhooksService struct{ t *transport }

func (s *WebhooksService) call(ctx context.Context, what, method, inboxEmail, id, suffix string, body, out any) error {
	if s.t == nil {
		return fmt.Errorf("%s: %w", what, ErrNoService)
	}
	err := s.t.do(ctx, request{
		method:   method,
		path:     webhookPath(inboxEmail, id) + suffix,
		body:     body,
		out:      out,
		notFound: webhookNotFound(inboxEmail),
	})
	if body != nil {
		err = invalidWebhook(err) // a create or update
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// ListWebhooks lists the webhooks of a scope (without secrets).
func (s *WebhooksService) ListWebhooks(ctx context.Context, inboxEmail string) (model.WebhookList, error) {
	var res model.WebhookList
	err := s.call(ctx, "list webhooks", http.MethodGet, inboxEmail, "", "", nil, &res)
	return res, err
}

// CreateWebhook creates a webhook; the answer carries its secret.
func (s *WebhooksService) CreateWebhook(ctx context.Context, inboxEmail string, req model.CreateWebhookRequest) (model.Webhook, error) {
	var res model.Webhook
	err := s.call(ctx, "create webhook", http.MethodPost, inboxEmail, "", "", req, &res)
	return res, err
}

// GetWebhook returns one webhook with its secret and stats.
func (s *WebhooksService) GetWebhook(ctx context.Context, inboxEmail, id string) (model.Webhook, error) {
	var res model.Webhook
	err := s.call(ctx, "get webhook "+id, http.MethodGet, inboxEmail, id, "", nil, &res)
	return res, err
}

// UpdateWebhook changes a webhook.
func (s *WebhooksService) UpdateWebhook(ctx context.Context, inboxEmail, id string, req model.UpdateWebhookRequest) (model.Webhook, error) {
	var res model.Webhook
	err := s.call(ctx, "update webhook "+id, http.MethodPatch, inboxEmail, id, "", req, &res)
	return res, err
}

// DeleteWebhook deletes a webhook.
func (s *WebhooksService) DeleteWebhook(ctx context.Context, inboxEmail, id string) error {
	return s.call(ctx, "delete webhook "+id, http.MethodDelete, inboxEmail, id, "", nil, nil)
}

// TestWebhook makes the server send a test delivery.
func (s *WebhooksService) TestWebhook(ctx context.Context, inboxEmail, id string) (model.TestWebhookResponse, error) {
	var res model.TestWebhookResponse
	err := s.call(ctx, "test webhook "+id, http.MethodPost, inboxEmail, id, "/test", nil, &res)
	return res, err
}

// RotateWebhookSecret replaces a webhook's secret; the old one stays valid
// for an hour.
func (s *WebhooksService) RotateWebhookSecret(ctx context.Context, inboxEmail, id string) (model.RotateSecretResponse, error) {
	var res model.RotateSecretResponse
	err := s.call(ctx, "rotate webhook secret "+id, http.MethodPost, inboxEmail, id, "/rotate-secret", nil, &res)
	return res, err
}

// WebhookTemplates lists the built-in templates.
func (s *WebhooksService) WebhookTemplates(ctx context.Context) (model.WebhookTemplates, error) {
	var res model.WebhookTemplates
	err := s.call(ctx, "list webhook templates", http.MethodGet, "", "templates", "", nil, &res)
	return res, err
}

// WebhookMetrics returns webhook and delivery counts.
func (s *WebhooksService) WebhookMetrics(ctx context.Context) (model.WebhookMetrics, error) {
	var res model.WebhookMetrics
	err := s.call(ctx, "get webhook metrics", http.MethodGet, "", "metrics", "", nil, &res)
	return res, err
}
