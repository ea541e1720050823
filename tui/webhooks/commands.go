package webhooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/client/webhookrecv"
	"sandview/model"
	"sandview/tui/service"
)

// Every call to the service runs in one of these tea.Cmds, bounded by
// requestTimeout and cancelled with the program's context. Each result
// comes back as one of the messages below, applied by results.go.

const requestTimeout = 60 * time.Second

// commands makes the Cmds of the webhooks screen.
type commands struct {
	ctx context.Context
	svc service.Service
}

func (c commands) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, requestTimeout)
}

// webhooksLoadedMsg carries the webhooks of every scope. err joins the
// scopes that could not be listed; the others are still in hooks.
type webhooksLoadedMsg struct {
	hooks []model.Webhook
	err   error
}

// webhookLoadedMsg carries one webhook with its secret and stats.
type webhookLoadedMsg struct {
	id   string
	hook model.Webhook
	err  error
}

// webhookMetricsMsg and webhookTemplatesMsg carry the metrics summary and
// the templates list.
type webhookMetricsMsg struct {
	metrics model.WebhookMetrics
	err     error
}

type webhookTemplatesMsg struct {
	templates []model.TemplateOption
	err       error
}

// webhookSavedMsg reports a create or an update (edit, enable/disable).
type webhookSavedMsg struct {
	hook    model.Webhook
	created bool
	verb    string // what the status bar says: "created", "saved", "enabled"…
	form    bool   // sent by the webhook form, which shows the errors
	err     error
}

// webhookDeletedMsg, webhookTestedMsg and webhookRotatedMsg report the
// other actions.
type webhookDeletedMsg struct {
	id  string
	err error
}

type webhookTestedMsg struct {
	id  string
	res model.TestWebhookResponse
	err error
}

type webhookRotatedMsg struct {
	id  string
	res model.RotateSecretResponse
	err error
}

// ReceiverMsg reports the built-in receiver's start (Receiver is set when
// it listens; Started when this start made it listen) and the webhook
// created to point at it.
type ReceiverMsg struct {
	Receiver Receiver
	Started  bool
	Hook     model.Webhook
	Err      error
	// Removed are the webhooks an earlier run left pointing at a receiver
	// that no longer listens, deleted before this one was created.
	Removed []string
}

// DeliveryMsg is one delivery the receiver got; receiverClosedMsg says it
// stopped.
type DeliveryMsg struct{ Delivery webhookrecv.Delivery }

type receiverClosedMsg struct{}

// hookScope is the inbox argument of the webhook calls for h.
func hookScope(h model.Webhook) string {
	if h.Scope == model.ScopeInbox {
		return h.InboxEmail
	}
	return ""
}

// loadWebhooks lists the global webhooks and those of each inbox. Inboxes
// the server no longer knows (expired) are skipped.
func (c commands) loadWebhooks(inboxes []string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		var hooks []model.Webhook
		var errs []error
		global, err := c.svc.ListWebhooks(ctx, "")
		if err != nil {
			errs = append(errs, err)
		}
		hooks = append(hooks, global.Webhooks...)
		for _, address := range inboxes {
			list, err := c.svc.ListWebhooks(ctx, address)
			var gone *client.InboxNotFoundError
			switch {
			case errors.As(err, &gone):
				continue
			case err != nil:
				errs = append(errs, err)
				continue
			}
			for _, h := range list.Webhooks {
				if h.Scope == "" {
					h.Scope = model.ScopeInbox
				}
				if h.InboxEmail == "" {
					h.InboxEmail = address
				}
				hooks = append(hooks, h)
			}
		}
		return webhooksLoadedMsg{hooks: hooks, err: errors.Join(errs...)}
	}
}

func (c commands) loadWebhook(h model.Webhook) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		full, err := c.svc.GetWebhook(ctx, hookScope(h), h.ID)
		if err == nil && full.Scope == "" {
			full.Scope, full.InboxEmail = h.Scope, h.InboxEmail
		}
		return webhookLoadedMsg{id: h.ID, hook: full, err: err}
	}
}

func (c commands) loadWebhookMetrics() tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		m, err := c.svc.WebhookMetrics(ctx)
		return webhookMetricsMsg{metrics: m, err: err}
	}
}

func (c commands) loadWebhookTemplates() tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		t, err := c.svc.WebhookTemplates(ctx)
		return webhookTemplatesMsg{templates: t.Templates, err: err}
	}
}

func (c commands) createWebhook(inbox string, req model.CreateWebhookRequest) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		h, err := c.svc.CreateWebhook(ctx, inbox, req)
		if err == nil && h.Scope == "" {
			h.Scope, h.InboxEmail = model.ScopeGlobal, inbox
			if inbox != "" {
				h.Scope = model.ScopeInbox
			}
		}
		return webhookSavedMsg{hook: h, created: true, verb: "created", form: true, err: err}
	}
}

func (c commands) updateWebhook(h model.Webhook, req model.UpdateWebhookRequest, verb string, fromForm bool) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		res, err := c.svc.UpdateWebhook(ctx, hookScope(h), h.ID, req)
		if err == nil && res.Scope == "" {
			res.Scope, res.InboxEmail = h.Scope, h.InboxEmail
		}
		return webhookSavedMsg{hook: res, verb: verb, form: fromForm, err: err}
	}
}

func (c commands) deleteWebhook(h model.Webhook) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		return webhookDeletedMsg{id: h.ID, err: c.svc.DeleteWebhook(ctx, hookScope(h), h.ID)}
	}
}

func (c commands) testWebhook(h model.Webhook) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		res, err := c.svc.TestWebhook(ctx, hookScope(h), h.ID)
		return webhookTestedMsg{id: h.ID, res: res, err: err}
	}
}

func (c commands) rotateWebhook(h model.Webhook) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		res, err := c.svc.RotateWebhookSecret(ctx, hookScope(h), h.ID)
		return webhookRotatedMsg{id: h.ID, res: res, err: err}
	}
}

// receiverEvents are the events of the receiver's webhook: all three.
func receiverEvents() []string {
	return []string{model.EventEmailReceived, model.EventEmailStored, model.EventEmailDeleted}
}

// startReceiver starts the built-in receiver on a free loopback port
// (unless recv already runs) and creates a global webhook pointing at it,
// with all three events and the default template. The receiver verifies
// with the new webhook's secret (plus secrets, those of the receiver's
// other webhooks) before the answer reaches the screen, so no delivery is
// checked without it.
func (c commands) startReceiver(recv Receiver, secrets []string) tea.Cmd {
	return func() tea.Msg {
		started := false
		if recv == nil {
			r, err := webhookrecv.Listen(c.ctx, "127.0.0.1:0", webhookrecv.Options{})
			if err != nil {
				return ReceiverMsg{Err: fmt.Errorf("start the built-in receiver: %w", err)}
			}
			recv, started = r, true
		}
		ctx, cancel := c.call()
		defer cancel()
		removed := c.removeLeftovers(ctx)
		h, err := c.svc.CreateWebhook(ctx, "", model.CreateWebhookRequest{
			URL:         recv.URL(),
			Events:      receiverEvents(),
			Template:    &model.WebhookTemplate{Type: model.TemplateDefault},
			Description: webhookrecv.Description,
		})
		if err != nil {
			return ReceiverMsg{Receiver: recv, Started: started, Err: err, Removed: removed}
		}
		if h.Scope == "" {
			h.Scope = model.ScopeGlobal
		}
		recv.SetSecrets(append(secrets, h.Secret)...)
		return ReceiverMsg{Receiver: recv, Started: started, Hook: h, Removed: removed}
	}
}

// removeLeftovers deletes the global webhooks a built-in receiver of an
// earlier run left behind (the program crashed before deleting them): they
// carry the receiver's description and point at a loopback port nothing
// listens on. It returns their ids; failures leave them be.
func (c commands) removeLeftovers(ctx context.Context) []string {
	list, err := c.svc.ListWebhooks(ctx, "")
	if err != nil {
		return nil
	}
	var removed []string
	for _, h := range list.Webhooks {
		if h.Description != webhookrecv.Description || !webhookrecv.Abandoned(ctx, h.URL) {
			continue
		}
		if c.svc.DeleteWebhook(ctx, "", h.ID) == nil {
			removed = append(removed, h.ID)
		}
	}
	return removed
}

// waitDelivery waits for the receiver's next delivery (nothing when the
// receiver hands none out).
func waitDelivery(ch <-chan webhookrecv.Delivery) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		d, ok := <-ch
		if !ok {
			return receiverClosedMsg{}
		}
		return DeliveryMsg{Delivery: d}
	}
}
