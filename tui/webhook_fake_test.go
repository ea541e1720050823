package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"sandview/client"
	"sandview/model"
)

// fakeWebhooks is the webhook state of fakeService (zero value ready).
type fakeWebhooks struct {
	list    []model.Webhook // every scope, with secrets and stats
	next    int
	reject  error // returned by create and update when set
	metrics model.WebhookMetrics
}

func (f *fakeService) addWebhook(h model.Webhook) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hooks.list = append(f.hooks.list, h)
}

func (f *fakeService) findWebhook(inbox, id string) (int, error) {
	for i, h := range f.hooks.list {
		if h.ID == id && h.InboxEmail == inbox {
			return i, nil
		}
	}
	return -1, &client.APIError{StatusCode: 404, Message: "webhook " + id + " not found"}
}

func (f *fakeService) ListWebhooks(_ context.Context, inbox string) (model.WebhookList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("listWebhooks %s", inbox)
	var out []model.Webhook
	for _, h := range f.hooks.list {
		if h.InboxEmail == inbox {
			h.Secret, h.Stats = "", nil
			out = append(out, h)
		}
	}
	return model.WebhookList{Webhooks: out, Total: len(out)}, nil
}

func (f *fakeService) GetWebhook(_ context.Context, inbox, id string) (model.Webhook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("getWebhook %s %s", inbox, id)
	i, err := f.findWebhook(inbox, id)
	if err != nil {
		return model.Webhook{}, err
	}
	return f.hooks.list[i], nil
}

func (f *fakeService) CreateWebhook(_ context.Context, inbox string, req model.CreateWebhookRequest) (model.Webhook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := json.Marshal(req)
	f.record("createWebhook %s %s", inbox, body)
	if f.hooks.reject != nil {
		return model.Webhook{}, fmt.Errorf("create webhook: %w", f.hooks.reject)
	}
	f.hooks.next++
	h := model.Webhook{
		ID: fmt.Sprintf("whk_new%d", f.hooks.next), URL: req.URL, Events: req.Events, Scope: model.ScopeGlobal,
		Enabled: true, Secret: fmt.Sprintf("whsec_newsecret%d", f.hooks.next), Template: req.Template, Filter: req.Filter,
		Description: req.Description, CreatedAt: testNow,
	}
	if inbox != "" {
		h.Scope, h.InboxEmail = model.ScopeInbox, inbox
	}
	f.hooks.list = append(f.hooks.list, h)
	return h, nil
}

func (f *fakeService) UpdateWebhook(_ context.Context, inbox, id string, req model.UpdateWebhookRequest) (model.Webhook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := json.Marshal(req)
	f.record("updateWebhook %s %s %s", inbox, id, body)
	if f.hooks.reject != nil {
		return model.Webhook{}, fmt.Errorf("update webhook %s: %w", id, f.hooks.reject)
	}
	i, err := f.findWebhook(inbox, id)
	if err != nil {
		return model.Webhook{}, err
	}
	h := &f.hooks.list[i]
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

func (f *fakeService) DeleteWebhook(_ context.Context, inbox, id string) error {
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
	f.hooks.list = slices.Delete(f.hooks.list, i, i+1)
	return nil
}

func (f *fakeService) TestWebhook(_ context.Context, inbox, id string) (model.TestWebhookResponse, error) {
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

func (f *fakeService) RotateWebhookSecret(_ context.Context, inbox, id string) (model.RotateSecretResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("rotateWebhook %s %s", inbox, id)
	i, err := f.findWebhook(inbox, id)
	if err != nil {
		return model.RotateSecretResponse{}, err
	}
	f.hooks.list[i].Secret = "whsec_rotated"
	return model.RotateSecretResponse{ID: id, Secret: "whsec_rotated", PreviousSecretValidUntil: testNow.Add(time.Hour)}, nil
}

func (f *fakeService) WebhookTemplates(context.Context) (model.WebhookTemplates, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("webhookTemplates")
	var out model.WebhookTemplates
	for _, t := range model.BuiltinTemplates() {
		out.Templates = append(out.Templates, model.TemplateOption{Label: "T " + t, Value: t})
	}
	return out, nil
}

func (f *fakeService) WebhookMetrics(context.Context) (model.WebhookMetrics, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("webhookMetrics")
	return f.hooks.metrics, nil
}
