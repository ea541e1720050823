package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/emailauth"
	"sandview/server/store"
)

// Options are the core's settings; a zero field means its default (see
// WithDefaults, which Open applies). The transports read the ones they
// share (domains, host name, clock, logger) from Core.Options.
type Options struct {
	// APIKey is the key requests must carry; on a shared store the
	// store's wins (and a different one is an error).
	APIKey string
	// Domains are the recipient domains inboxes may live in (at least one).
	Domains []string
	// EncryptionPolicy is always, enabled, disabled or never.
	EncryptionPolicy string
	// EncryptionContext is the payload context string.
	EncryptionContext string
	// Store keeps the inboxes and emails; the composition root opens it
	// and closes it after Close. On a store shared with other processes
	// (PostgreSQL) the core is one replica of several.
	Store store.Store
	// Hostname names the server in the Received header.
	Hostname string
	// MinTTL, DefaultTTL and MaxTTL bound inbox lifetimes.
	MinTTL, DefaultTTL, MaxTTL time.Duration
	// MaxEmailsPerInbox and MaxStoreBytes bound storage; the sweep evicts
	// the oldest emails beyond them (so they may be exceeded for up to a
	// SweepInterval).
	MaxEmailsPerInbox int
	MaxStoreBytes     int64
	// SignAtIngest signs every payload before Arrive returns.
	SignAtIngest bool
	// SigningKey is the server's key; nil takes the store's, or creates
	// one there.
	SigningKey *crypto.SigningKey
	// DNSServers and Resolver answer the authentication checks' queries
	// (Resolver when set, else a caching client of DNSServers or the
	// system's servers).
	DNSServers []string
	Resolver   emailauth.Resolver
	// AuthBudget bounds the checks of one email; LoopbackAuthBudget, when
	// positive, bounds those of mail from a loopback address checked
	// through the caching client.
	AuthBudget, LoopbackAuthBudget time.Duration
	// Spamd scores each mail (HOST:PORT, "" none) within SpamdBudget.
	Spamd       string
	SpamdBudget time.Duration
	// SweepInterval is how often expired inboxes are removed and the
	// storage limits enforced.
	SweepInterval time.Duration
	// ReferenceMetadata gives the metadata's `to` as one string, the
	// envelope recipient (the reference deployment's profile).
	ReferenceMetadata bool
	// Now is the clock.
	Now func() time.Time
	// Logger receives operational logs.
	Logger *slog.Logger
	// Chaos is the chaos switch (see ChaosAt); Rand draws its random
	// numbers in [0, 1).
	Chaos bool
	Rand  func() float64
}

// Webhooks is the webhook engine as the core tells it of its events.
type Webhooks interface {
	// Handle takes a published event.
	Handle(Event)
	// Prepare queues the deliveries of new emails in their commit.
	Prepare(batch *store.Batch, events []Event) error
	// Reload reads the webhooks again from the store.
	Reload(ctx context.Context) error
	// ForgetInbox drops the webhooks of an inbox that is gone.
	ForgetInbox(address string)
	// Wake tells the engine that deliveries were queued (with a commit,
	// or by another replica).
	Wake()
	// Close stops the engine.
	Close(ctx context.Context) error
}

// ErrStopping is Arrive's error once the core stops taking mail.
var ErrStopping = errors.New("the server is shutting down")

// Core is the sandbox service's domain. Create it with Open, then Start it.
type Core struct {
	opts      Options
	log       *slog.Logger
	key       *crypto.SigningKey
	keyB64    string
	aadPrefix string
	apiKey    string
	// apiKeyCreated tells that this start stored a new API key in the
	// shared store.
	apiKeyCreated bool
	store         store.Store
	reg           *registry
	bus           *Bus
	ids           *idGenerator
	signer        *signer
	checks        *checks
	hooks         Webhooks
	doubts        doubts // arrivals answered 451 that may be stored
	// orphansChecked is when the sweep last looked for unsigned emails
	// (the sweep's goroutine only).
	orphansChecked time.Time

	catchAll atomic.Pointer[string] // the catch-all inbox's address (see SetCatchAll)
	chaos    chaosCounters

	// baseCtx ends when the core stops; arrivals and streams use it.
	baseCtx context.Context
	cancel  context.CancelFunc

	workMu   sync.Mutex
	stopping bool
	work     sync.WaitGroup // arrivals in progress
	loops    sync.WaitGroup // the signer's workers, the sweeper, DNS
}

// Open takes the keys and the live inboxes from the store it is given;
// ctx bounds the opening.
func Open(ctx context.Context, o Options) (*Core, error) {
	o, err := o.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("core options: %w", err)
	}
	c := &Core{opts: o, log: o.Logger, apiKey: o.APIKey, bus: newBus(), aadPrefix: aadPrefix(o.EncryptionContext)}
	c.baseCtx, c.cancel = context.WithCancel(context.Background())
	if err := (opening{c}).openState(ctx); err != nil {
		c.cancel()
		return nil, err
	}
	checks, err := newChecks(o)
	if err != nil {
		c.cancel()
		return nil, err
	}
	c.checks = checks
	return c, nil
}

// Start hands the core the webhook engine and starts its background
// work: notices of the other replicas, deferred signing, the DNS watch
// and the sweep.
func (c *Core) Start(hooks Webhooks) error {
	c.hooks = hooks
	if err := c.store.Listen(c.baseCtx, notices{c}.onNotice); err != nil {
		return err
	}
	c.signer.run(c.baseCtx, &c.loops)
	c.checks.watch(c.baseCtx, &c.loops, c.log)
	c.loops.Go(every(c.baseCtx, c.opts.SweepInterval, c.sweep))
	if c.opts.Chaos {
		c.loops.Go(c.Chaos().sweepLoop())
	}
	return nil
}

// Context ends when the core stops (see WaitWork and Close): arrivals,
// event streams and the background work run under it.
func (c *Core) Context() context.Context { return c.baseCtx }

// StopIntake is the first step of a shutdown: Arrive refuses new mail
// from now on and every event subscription ends.
func (c *Core) StopIntake() {
	c.workMu.Lock()
	c.stopping = true
	c.workMu.Unlock()
	c.bus.close()
}

// WaitWork waits for the arrivals in progress, or until ctx ends; then it
// ends Context, and with it the background work.
func (c *Core) WaitWork(ctx context.Context) error {
	done := make(chan struct{})
	go func() { c.work.Wait(); close(done) }()
	defer c.cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for arrivals: %w", ctx.Err())
	}
}

// Close ends the background work, waits for it and the arrivals in
// progress and stops the webhook engine; the store is left to its opener.
func (c *Core) Close(ctx context.Context) error {
	c.cancel()
	c.loops.Wait()
	c.work.Wait()
	var errs []error
	if c.hooks != nil {
		if err := c.hooks.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop webhooks: %w", err))
		}
	}
	c.checks.close(c.log)
	return errors.Join(errs...)
}

// beginWork registers an arrival unless the core is stopping.
func (c *Core) beginWork() bool {
	c.workMu.Lock()
	defer c.workMu.Unlock()
	if c.stopping {
		return false
	}
	c.work.Add(1)
	return true
}

// Events is the internal event bus (see Event for the event types).
func (c *Core) Events() *Bus { return c.bus }

// ServerSigPk is the base64url ML-DSA-65 public key clients pin.
func (c *Core) ServerSigPk() string { return c.keyB64 }

// Options are the core's settings, defaults applied.
func (c *Core) Options() Options { return c.opts }

// APIKey is the key requests must carry (the shared store's, on one).
func (c *Core) APIKey() string { return c.apiKey }

// APIKeyCreated reports that this start generated the API key and stored
// it in the shared store.
func (c *Core) APIKeyCreated() bool { return c.apiKeyCreated }

// WaitForSignatures returns once no stored email waits for a background
// signature (see Options.SignAtIngest), or with ctx's error.
func (c *Core) WaitForSignatures(ctx context.Context) error { return c.signer.wait(ctx) }

// Ping checks that the store answers.
func (c *Core) Ping(ctx context.Context) error { return c.store.Ping(ctx) }

// publish sends events to the bus (the event stream) and to the webhook
// engine; neither blocks. The deliveries of a new email were queued with
// it (commit): its email.received and email.stored go to the bus alone.
func (c *Core) publish(events ...Event) {
	c.bus.Publish(events...)
	for _, ev := range events {
		if ev.Type != model.EventEmailReceived && ev.Type != model.EventEmailStored {
			c.hooks.Handle(ev)
		}
	}
}

func (c *Core) publishDeleted(in *Inbox, ids []string, reason string) {
	if len(ids) == 0 {
		return
	}
	now := c.opts.Now().UTC()
	events := make([]Event, len(ids))
	for i, id := range ids {
		events[i] = Event{Type: model.EventEmailDeleted, At: now, Inbox: in.ref(), EmailID: id, Reason: reason}
	}
	c.publish(events...)
}

// publishInboxDeleted tells the bus (the event stream, not the webhook
// engine) that an inbox is gone (EventInboxDeleted).
func (c *Core) publishInboxDeleted(in *Inbox, reason string) {
	c.bus.Publish(Event{Type: EventInboxDeleted, At: c.opts.Now().UTC(), Inbox: in.ref(), Reason: reason})
}

// every returns a loop that calls fn every interval until ctx ends.
func every(ctx context.Context, interval time.Duration, fn func()) func() {
	return func() {
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				fn()
			}
		}
	}
}

// aadPrefix is the part of the context before its first colon
// ("service" for "service:email:v1").
func aadPrefix(context string) string {
	if i := strings.IndexByte(context, ':'); i > 0 {
		return context[:i]
	}
	return context
}
