package tuitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"sandview/client"
	"sandview/model"
	"sandview/tui/feed"
)

// Service is an in-memory service for tests: it serves the mail calls,
// the webhook calls and the live feed (Subscribe, then Sink to push), and
// records every call as a line ("emails demo@sandbox.test").
type Service struct {
	mu       sync.Mutex
	inboxes  []model.Inbox
	emails   map[string][]model.Email
	raw      map[string][]byte
	calls    []string
	fail     error // returned by every mutating call when set
	hooks    []model.Webhook
	nextHook int
	reject   error // returned by webhook create and update when set
	metrics  model.WebhookMetrics
	sink     feed.Sink
}

// NewService returns a service holding inboxes and no email.
func NewService(inboxes ...model.Inbox) *Service {
	return &Service{inboxes: inboxes, emails: map[string][]model.Email{}, raw: map[string][]byte{}}
}

// NewFixtureService returns a service holding the fixture inboxes, the
// fixture emails in the demo inbox and the raw source of the first one.
func NewFixtureService() *Service {
	s := NewService(Inboxes()...)
	s.emails[DemoAddr] = Emails()
	s.raw["e1"] = RawE1
	return s
}

// Record adds a call to the log (tests record their openers here).
func (f *Service) Record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(format, args...)
}

func (f *Service) record(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

// Called reports whether a recorded call starts with prefix.
func (f *Service) Called(prefix string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.ContainsFunc(f.calls, func(c string) bool { return strings.HasPrefix(c, prefix) })
}

// Calls returns the recorded calls.
func (f *Service) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// Fail makes every mutating call fail with err (nil: succeed again).
func (f *Service) Fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = err
}

// SetEmails replaces the emails of an inbox.
func (f *Service) SetEmails(address string, emails []model.Email) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.emails[address] = emails
}

// AddEmail delivers a new email, listed first.
func (f *Service) AddEmail(address string, e model.Email) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.emails[address] = append([]model.Email{e}, f.emails[address]...)
}

// Subscribe keeps sink for Sink until stop is called.
func (f *Service) Subscribe(sink feed.Sink) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("subscribe")
	f.sink = sink
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.sink = nil
	}, nil
}

// Sink is the subscribed feed, to push to as the client would (nil when
// nothing is subscribed).
func (f *Service) Sink() feed.Sink {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sink
}

// Inboxes lists the inboxes.
func (f *Service) Inboxes() []model.Inbox {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.inboxes)
}

// CreateInbox adds an inbox (new@sandbox.test unless an address is given).
func (f *Service) CreateInbox(_ context.Context, opts client.CreateInboxOptions) (model.Inbox, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("create %s %s %s", opts.TTL, opts.EmailAddress, opts.Encryption)
	if f.fail != nil {
		return model.Inbox{}, f.fail
	}
	addr := opts.EmailAddress
	if addr == "" {
		addr = "new@sandbox.test"
	}
	inbox := model.Inbox{EmailAddress: addr, ExpiresAt: Now.Add(opts.TTL), Encrypted: opts.Encryption != model.EncryptionPlain}
	f.inboxes = append(f.inboxes, inbox)
	return inbox, nil
}

// DeleteInbox records the deletion.
func (f *Service) DeleteInbox(_ context.Context, address string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("deleteInbox %s", address)
	return f.fail
}

// ExportInbox writes a stub export file.
func (f *Service) ExportInbox(address, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("export %s %s", address, path)
	if f.fail != nil {
		return f.fail
	}
	return os.WriteFile(path, []byte(`{"version":1}`), 0o600)
}

// ImportInbox returns imported@sandbox.test when path exists.
func (f *Service) ImportInbox(_ context.Context, path string) (model.Inbox, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("import %s", path)
	if _, err := os.Stat(path); err != nil {
		return model.Inbox{}, fmt.Errorf("import inbox: %w", err)
	}
	if f.fail != nil {
		return model.Inbox{}, f.fail
	}
	return model.Inbox{EmailAddress: "imported@sandbox.test", ExpiresAt: Now.Add(time.Hour)}, nil
}

// Emails lists the emails of an inbox.
func (f *Service) Emails(_ context.Context, address string) ([]model.Email, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("emails %s", address)
	return slices.Clone(f.emails[address]), nil
}

// Email returns one email with its content.
func (f *Service) Email(_ context.Context, address, id string) (model.Email, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("email %s %s", address, id)
	for _, e := range f.emails[address] {
		if e.ID == id {
			e.HasContent = true
			return e, nil
		}
	}
	return model.Email{}, errors.New("email not found")
}

// Raw returns the raw source of an email.
func (f *Service) Raw(_ context.Context, address, id string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("raw %s %s", address, id)
	if r, ok := f.raw[id]; ok {
		return r, nil
	}
	return nil, errors.New("raw not found")
}

// MarkRead records the call.
func (f *Service) MarkRead(_ context.Context, address, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("markRead %s %s", address, id)
	return f.fail
}

// DeleteEmail records the call.
func (f *Service) DeleteEmail(_ context.Context, address, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("deleteEmail %s %s", address, id)
	return f.fail
}

// AddWebhook stores a webhook (with its secret and stats).
func (f *Service) AddWebhook(h model.Webhook) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hooks = append(f.hooks, h)
}

// RejectWebhooks makes webhook create and update fail with err.
func (f *Service) RejectWebhooks(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reject = err
}

// SetMetrics sets the metrics WebhookMetrics returns.
func (f *Service) SetMetrics(m model.WebhookMetrics) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.metrics = m
}

func (f *Service) findWebhook(inbox, id string) (int, error) {
	for i, h := range f.hooks {
		if h.ID == id && h.InboxEmail == inbox {
			return i, nil
		}
	}
	return -1, &client.APIError{StatusCode: 404, Message: "webhook " + id + " not found"}
}

// ListWebhooks lists the webhooks of a scope, without secrets and stats.
func (f *Service) ListWebhooks(_ context.Context, inbox string) (model.WebhookList, error) {
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
func (f *Service) GetWebhook(_ context.Context, inbox, id string) (model.Webhook, error) {
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
func (f *Service) CreateWebhook(_ context.Context, inbox string, req model.CreateWebhookRequest) (model.Webhook, error) {
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
		Description: req.Description, CreatedAt: Now,
	}
	if inbox != "" {
		h.Scope, h.InboxEmail = model.ScopeInbox, inbox
	}
	f.hooks = append(f.hooks, h)
	return h, nil
}

// UpdateWebhook applies the fields set in req.
func (f *Service) UpdateWebhook(_ context.Context, inbox, id string, req model.UpdateWebhookRequest) (model.Webhook, error) {
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
func (f *Service) DeleteWebhook(_ context.Context, inbox, id string) error {
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
func (f *Service) TestWebhook(_ context.Context, inbox, id string) (model.TestWebhookResponse, error) {
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
func (f *Service) RotateWebhookSecret(_ context.Context, inbox, id string) (model.RotateSecretResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("rotateWebhook %s %s", inbox, id)
	i, err := f.findWebhook(inbox, id)
	if err != nil {
		return model.RotateSecretResponse{}, err
	}
	f.hooks[i].Secret = "whsec_rotated"
	return model.RotateSecretResponse{ID: id, Secret: "whsec_rotated", PreviousSecretValidUntil: Now.Add(time.Hour)}, nil
}

// WebhookTemplates lists the built-in templates, labelled "T <name>".
func (f *Service) WebhookTemplates(context.Context) (model.WebhookTemplates, error) {
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
func (f *Service) WebhookMetrics(context.Context) (model.WebhookMetrics, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("webhookMetrics")
	return f.metrics, nil
}
