package webhook

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"sandview/crypto"
	"sandview/model"
)

// Inboxes resolves inbox addresses for the inbox-scoped routes.
type Inboxes interface {
	// Lookup returns the hash and canonical address of a live inbox.
	Lookup(address string) (hash string, canonicalAddress string, ok bool)
}

// Engine owns the webhooks: it serves their routes and delivers events.
type Engine struct {
	cfg     Config
	wire    wire // cfg.wire()
	inboxes Inboxes
	log     *slog.Logger
	// q is the delivery queue in the store (queue.go).
	q queue

	// intakeMu guards the queue against Close; Handle never waits on mu.
	intakeMu     sync.Mutex
	intakeClosed bool
	queue        chan Incoming
	dispatched   chan struct{} // closed when the dispatcher has drained the queue

	mu      sync.Mutex
	hooks   map[string]*hook
	memo    *emailMemo
	closing bool

	slots   chan struct{} // concurrent deliveries overall
	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup // delivery goroutines
	// interrupted counts the deliveries shutdown cut off (Close reports it).
	interrupted atomic.Int64
}

// New starts an engine on cfg.Store: it loads the stored webhooks and
// claims their queued deliveries as they fall due.
func New(cfg Config, inboxes Inboxes) (*Engine, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Engine{
		cfg:        cfg,
		wire:       cfg.wire(),
		inboxes:    inboxes,
		log:        cfg.Logger,
		queue:      make(chan Incoming, incomingQueueSize),
		dispatched: make(chan struct{}),
		hooks:      make(map[string]*hook),
		memo:       newEmailMemo(rememberedEmails),
		slots:      make(chan struct{}, maxConcurrentOverall),
		q:          queue{store: cfg.Store, wakeup: make(chan struct{}, 1)},
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if err := e.load(); err != nil {
		e.cancel()
		return nil, err
	}
	go e.dispatchLoop()
	return e, nil
}

// Enabled reports whether the webhook system is on (server-info
// webhookEnabled).
func (e *Engine) Enabled() bool { return e.cfg.Enabled }

// RequireAuthDefault is the default of requireAuth (server-info
// webhookRequireAuthDefault).
func (e *Engine) RequireAuthDefault() bool { return e.cfg.RequireAuthDefault }

// Handle queues an event for delivery. It never blocks: when the queue is
// full the event is dropped and logged.
func (e *Engine) Handle(ev Incoming) {
	if !e.cfg.Enabled {
		return
	}
	e.intakeMu.Lock()
	defer e.intakeMu.Unlock()
	if e.intakeClosed {
		return
	}
	select {
	case e.queue <- ev:
	default:
		e.log.Warn("webhook event queue is full; event dropped", "type", ev.Type, "inbox", ev.InboxEmail, "email", ev.EmailID)
	}
}

// ForgetInbox drops the cached webhooks of a deleted or expired inbox
// (the store deleted them, with their queued deliveries, with the inbox).
func (e *Engine) ForgetInbox(address string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, h := range e.hooks {
		if h.rec.Scope == model.ScopeInbox && strings.EqualFold(h.rec.InboxEmail, address) {
			delete(e.hooks, id)
		}
	}
	e.memo.forgetInbox(address)
}

// Close stops intake, lets queued events and in-flight attempts finish
// until ctx ends, then cancels the rest. Unfinished deliveries stay queued
// in the store for the next start.
func (e *Engine) Close(ctx context.Context) error {
	e.intakeMu.Lock()
	already := e.intakeClosed
	if !already {
		e.intakeClosed = true
		close(e.queue)
	}
	e.intakeMu.Unlock()
	if already {
		return nil
	}
	var errs []error
	select {
	case <-e.dispatched:
	case <-ctx.Done():
		e.cancel()
		<-e.dispatched
	}
	claims{e}.halt()
	e.mu.Lock()
	e.closing = true
	e.mu.Unlock()

	done := make(chan struct{})
	go func() { e.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		e.cancel()
		<-done
	}
	e.cancel()
	// Only deliveries actually cut off count: a deadline that passed while
	// nothing ran is no error.
	if n := e.interrupted.Load(); n > 0 {
		errs = append(errs, fmt.Errorf("%d webhook deliveries still running at shutdown were interrupted: %w", n, ctx.Err()))
	}
	return errors.Join(errs...)
}

// VerifySignature reports whether signature (an X-Service-Signature value)
// signs timestamp and body under the webhook's current secret or, during
// the hour after a rotation, its previous one.
func (e *Engine) VerifySignature(webhookID, signature, timestamp string, body []byte) bool {
	e.mu.Lock()
	h, ok := e.hooks[webhookID]
	var secrets []string
	if ok {
		secrets = h.rec.validSecrets(e.cfg.Now())
	}
	e.mu.Unlock()
	return ok && crypto.VerifyWebhookSignature(signature, timestamp, body, secrets...)
}

// byCreation orders webhooks oldest first: by sequence number, then, among
// records stored before sequence numbers existed (all 0), by creation time
// and id.
func byCreation(a, b *hook) int {
	return cmp.Or(cmp.Compare(a.rec.Seq, b.rec.Seq), a.rec.CreatedAt.Compare(b.rec.CreatedAt), strings.Compare(a.rec.ID, b.rec.ID))
}

// hooksLocked returns the webhooks keep accepts, oldest first.
func (e *Engine) hooksLocked(keep func(*hook) bool) []*hook {
	var out []*hook
	for _, h := range e.hooks {
		if keep(h) {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, byCreation)
	return out
}
