package tuitest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"sandview/client"
	"sandview/model"
)

// hookFake serves the webhook calls of Service: every scope's webhooks in
// one list, with their secrets and stats.
type hookFake struct {
	*callLog
	hooks    []model.Webhook
	nextHook int
	reject   error // returned by webhook create and update when set
	metrics  model.WebhookMetrics
}

// AddWebhook stores a webhook (with its secret and stats).
func (f *hookFake) AddWebhook(h model.Webhook) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hooks = append(f.hooks, h)
}

// RejectWebhooks makes webhook create and update fail with err.
func (f *hookFake) RejectWebhooks(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reject = err
}

// SetMetrics sets the metrics WebhookMetrics returns.
func (f *hookFake) SetMetrics(m model.WebhookMetrics) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.metrics = m
}

func (f *hookFake) findWebhook(inbox, id string) (int, error) {
	for i, h := range f.hooks {
		if h.ID == id && h.InboxEmail == inbox {
			return i, nil
		}
	}
	return -1, &client.APIError{StatusCode: 404, Message: "webhook " + id + " not found"}
}

// ListWebhooks lists the webhooks of a scope, without secrets and stats.
func (f *hookFake) ListWebhooks(_ context.Context, inbox string) (model.WebhookList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("listWebhooks %s", inbox)
	var out []model.Webhook
	for _, h := range f.hooks {
		if h.InboxEmail == inbox {
			h.Secret, h.Stats = "", nil
			out = append(out, h)
		}
	}
	return model.WebhookList{Webhooks: out, Total: len(out)}, nil
}

// GetWebhook returns a webhook with its secret and stats.
func (f *hookFake) GetWebhook(_ context.Context, inbox, id string) (model.Webhook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("getWebhook %s %s", inbox, id)
	i, err := f.findWebhook(inbox, id)
	if err != nil {
		return model.Webhook{}, err
	}
	return f.hooks[i], nil
}

// CreateWebhook adds whk_newN with secret whsec_newsecretN.
func (f *hookFake) CreateWebhook(_ context.Context, inbox string, req model.CreateWebhookRequest) (model.Webhook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := json.Marshal(req)
	f.record("createWebhook %s %s", inbox, body)
	if f.reject != nil {
		return model.Webhook{}, fmt.Errorf("create webhook: %w", f.reject)
	}
	f.nextHook++
	h := model.Webhook{
		ID: fmt.Sprintf("whk_new%d", f.nextHook), URL: req.URL, Events: req.Events, Scope: model.ScopeGlobal,
		Enabled: true, Secret: fmt.Sprintf("whsec_newsecret%d", f.nextHook), Template: req.Template, Filter: req.Filter,
		Description: req.Description, CreatedAt: Now(),
	}
	if inbox != "" {
		h.Scope, h.InboxEmail = model.ScopeInbox, inbox
	}
	f.hooks = append(f.hooks, h)
	return h, nil
}

// UpdateWebhook applies the fields set in req.
func (f *hookFake) UpdateWebhook(_ context.Context, inbox, id string, req model.UpdateWebhookRequest) (model.Webhook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := json.Marshal(req)
	f.record("updateWebhook %s %s %s", inbox, id, body)
	if f.reject != nil {
		return model.Webhook{}, fmt.Errorf("update webhook %s: %w", id, f.reject)
	}
	i, err := f.findWebhook(inbox, id)
	if err != nil {
		return model.Webhook{}, err
	}
	h := &f.hooks[i]
	if req.URL != nil {
		h.URL = *req.URL
	}
	if req.Events != nil {
		h.Events = req.Events
	}
	if req.Enabled != nil {
		h.Enabled = *req.Enabled
	}
	if req.Description != nil {
		h.Description = *req.Description
	}
	if req.Template.Set {
		h.Template = nil
		if !req.Template.Null {
			t := req.Template.Value
			h.Template = &t
		}
	}
	if req.Filter.Set {
		h.Filter = nil
		if !req.Filter.Null {
			c := req.Filter.Value
			h.Filter = &c
		}
	}
	out := *h
	out.Secret = ""
	return out, nil
}

// DeleteWebhook removes a webhook.
func (f *hookFake) DeleteWebhook(_ context.Context, inbox, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("deleteWebhook %s %s", inbox, id)
	if f.fail != nil {
		return f.fail
	}
	i, err := f.findWebhook(inbox, id)
	if err != nil {
		return err
	}
	f.hooks = slices.Delete(f.hooks, i, i+1)
	return nil
}

// TestWebhook answers a delivered test with a hostile response body.
func (f *hookFake) TestWebhook(_ context.Context, inbox, id string) (model.TestWebhookResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("testWebhook %s %s", inbox, id)
	if _, err := f.findWebhook(inbox, id); err != nil {
		return model.TestWebhookResponse{}, err
	}
	return model.TestWebhookResponse{
		Success: true, StatusCode: 200, ResponseTime: 42, ResponseBody: "{\"ok\":true}\x1b[2J",
		PayloadSent: json.RawMessage(`{"id":"evt_test","object":"event","type":"email.received","data":{"subject":"Test \u001b[31mwebhook"}}`),
	}, nil
}

// RotateWebhookSecret sets the secret to whsec_rotated.
func (f *hookFake) RotateWebhookSecret(_ context.Context, inbox, id string) (model.RotateSecretResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("rotateWebhook %s %s", inbox, id)
	i, err := f.findWebhook(inbox, id)
	if err != nil {
		return model.RotateSecretResponse{}, err
	}
	f.hooks[i].Secret = "whsec_rotated"
	return model.RotateSecretResponse{ID: id, Secret: "whsec_rotated", PreviousSecretValidUntil: Now().Add(time.Hour)}, nil
}

// WebhookTemplates lists the built-in templates, labelled "T <name>".
func (f *hookFake) WebhookTemplates(context.Context) (model.WebhookTemplates, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("webhookTemplates")
	var out model.WebhookTemplates
	for _, t := range model.BuiltinTemplates() {
		out.Templates = append(out.Templates, model.TemplateOption{Label: "T " + t, Value: t})
	}
	return out, nil
}

// WebhookMetrics returns the metrics set with SetMetrics.
func (f *hookFake) WebhookMetrics(context.Context) (model.WebhookMetrics, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("webhookMetrics")
	return f.metrics, nil
}
