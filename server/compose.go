package server

import (
	"fmt"

	"sandview/server/core"
	"sandview/server/httpapi"
	"sandview/server/smtpd"
	"sandview/server/store"
	"sandview/server/webhook"
)

// The core's and the transports' types, as this package has always named
// them.
type (
	// Event is one message of the internal event bus (see core.Event).
	Event = core.Event
	// Bus fans events out to subscribers (see core.Bus).
	Bus = core.Bus
	// InboxRef names the inbox of an event.
	InboxRef = core.InboxRef
	// ReceivedEmail is the plaintext of a received email.
	ReceivedEmail = core.ReceivedEmail
	// Refusal is an SMTP refusal the server answered (see smtpd.Refusal).
	Refusal = smtpd.Refusal
)

// webhookEngine is the webhook engine as the core and the HTTP API use
// it: the core's events become the engine's incoming events.
type webhookEngine struct{ *webhook.Engine }

var (
	_ core.Webhooks    = (*webhookEngine)(nil)
	_ httpapi.Webhooks = (*webhookEngine)(nil)
)

// startWebhooks creates the webhook engine on the core's store, which
// keeps the webhooks and their delivery queue.
func startWebhooks(cfg Config, c *core.Core, st store.Store) (*webhookEngine, error) {
	wcfg := webhook.DefaultConfig()
	if cfg.Webhooks != nil {
		wcfg = *cfg.Webhooks
	}
	wcfg.Store = st
	wcfg.Logger = cfg.Logger
	engine, err := webhook.New(wcfg, c.Inboxes())
	if err != nil {
		return nil, fmt.Errorf("start webhooks: %w", err)
	}
	return &webhookEngine{engine}, nil
}

// Handle implements core.Webhooks.
func (w *webhookEngine) Handle(ev core.Event) { w.Engine.Handle(incoming(ev)) }

// Prepare implements core.Webhooks.
func (w *webhookEngine) Prepare(batch *store.Batch, events []core.Event) error {
	in := make([]webhook.Incoming, len(events))
	for i, ev := range events {
		in[i] = incoming(ev)
	}
	return w.Engine.Prepare(batch, in)
}

// incoming is an event as the webhook engine takes it.
func incoming(ev core.Event) webhook.Incoming {
	in := webhook.Incoming{Type: ev.Type, At: ev.At, InboxEmail: ev.Inbox.Address,
		InboxHash: ev.Inbox.Hash, EmailID: ev.EmailID, Reason: ev.Reason}
	if data, ok := ev.ReceivedData(); ok {
		in.Received = &data
		in.AuthVerdict = ev.Received.Auth.Verdict()
	}
	return in
}
