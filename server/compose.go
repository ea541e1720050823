package server

import (
	"fmt"
	"math/rand/v2"

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

// coreOptions are the core's options of a configuration with its
// defaults applied, on the store Start opened.
func coreOptions(cfg Config, st store.Store) core.Options {
	o := core.Options{
		APIKey:            cfg.APIKey,
		Domains:           cfg.Domains,
		EncryptionPolicy:  cfg.EncryptionPolicy,
		EncryptionContext: cfg.EncryptionContext,
		Store:             st,
		Hostname:          cfg.Hostname,
		MinTTL:            MinTTL,
		DefaultTTL:        cfg.DefaultTTL,
		MaxTTL:            cfg.MaxTTL,
		MaxEmailsPerInbox: cfg.MaxEmailsPerInbox,
		MaxStoreBytes:     cfg.MaxStoreBytes,
		SignAtIngest:      cfg.SignAtIngest,
		SigningKey:        cfg.SigningKey,
		DNSServers:        cfg.DNSServers,
		Resolver:          cfg.Resolver,
		AuthBudget:        cfg.AuthBudget,
		Spamd:             cfg.Spamd,
		SpamdBudget:       cfg.SpamdBudget,
		SweepInterval:     cfg.SweepInterval,
		ReferenceMetadata: cfg.Compat == CompatReference,
		Now:               cfg.Now,
		Logger:            cfg.Logger,
		Chaos:             cfg.Chaos,
		Rand:              cfg.Rand,
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.AuthBudget == 0 {
		// Without an explicit budget, mail from a loopback address gets
		// the short one when checked against the system's resolvers.
		o.AuthBudget, o.LoopbackAuthBudget = DefaultAuthBudget, DefaultLoopbackAuthBudget
	}
	return o
}

// apiSettings are the HTTP API's settings of a configuration.
func apiSettings(cfg Config) httpapi.Settings {
	return httpapi.Settings{
		Dev:               cfg.Dev,
		Chaos:             cfg.Chaos,
		Reference:         cfg.Compat == CompatReference,
		Persistent:        cfg.DataDir != "",
		EncryptionContext: cfg.EncryptionContext,
		EncryptionPolicy:  cfg.EncryptionPolicy,
		DefaultTTL:        cfg.DefaultTTL,
		MaxTTL:            cfg.MaxTTL,
		Domains:           cfg.Domains,
		HeartbeatInterval: cfg.HeartbeatInterval,
		Now:               cfg.Now,
		Logger:            cfg.Logger,
	}
}

// smtpSettings are the SMTP transport's settings of a configuration.
func smtpSettings(cfg Config) smtpd.Settings {
	return smtpd.Settings{
		Hostname:          cfg.Hostname,
		Domains:           cfg.Domains,
		MaxMessageBytes:   cfg.MaxMessageBytes,
		MaxConns:          cfg.SMTPMaxConns,
		MaxConnsPerIP:     cfg.SMTPMaxConnsPerIP,
		IdleTimeout:       cfg.SMTPIdleTimeout,
		NoProgressTimeout: cfg.SMTPNoProgressTimeout,
		BufferBytes:       cfg.SMTPBufferBytes,
		AuthFile:          cfg.SMTPAuthFile,

		AuthMaxFailures:      cfg.SMTPAuthMaxFailures,
		AuthMaxFailuresPerIP: cfg.SMTPAuthMaxFailuresPerIP,
		AuthLockout:          cfg.SMTPAuthLockout,
		TLSConfig:            cfg.TLSConfig,
		RequireTLS:           cfg.SMTPRequireTLS,
		Now:                  cfg.Now,
		Logger:               cfg.Logger,
	}
}

// traceToken keeps a client-given name to the characters of domain names
// (see core.TraceToken); the configuration cleans Hostname with it.
func traceToken(s, fallback string) string { return core.TraceToken(s, fallback) }

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
	}
	return in
}
