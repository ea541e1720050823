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
	"sandview/server/store"
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
	store   *diskStore
	// shared is Config.Shared: the store several engines share.
	shared store.Webhooks
	// wake starts a claim of due deliveries (shared mode); claimed counts
	// the claimed deliveries not yet finished; stopClaims ends the claim
	// loop, which claiming tracks.
	wake       chan struct{}
	claimed    atomic.Int64
	stopClaims context.CancelFunc
	claiming   sync.WaitGroup
	// version is the shared webhooks' version the cache holds (mu).
	version uint64

	// intakeMu guards the queue against Close; Handle never waits on mu.
	intakeMu     sync.Mutex
	intakeClosed bool
	queue        chan Incoming
	dispatched   chan struct{} // closed when the dispatcher has drained the queue

	// seq is the last creation sequence number handed out (nextSeq).
	seq atomic.Uint64

	mu      sync.Mutex
	hooks   map[string]*hook
	timers  map[string]*retryTimer // by delivery id
	memo    *emailMemo
	closing bool

	slots   chan struct{} // concurrent deliveries overall
	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup // delivery goroutines
	// interrupted counts the deliveries shutdown cut off (Close reports it).
	interrupted atomic.Int64
}

// New starts an engine; with cfg.DataDir it loads the stored webhooks and
// schedules their pending retries.
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
		timers:     make(map[string]*retryTimer),
		memo:       newEmailMemo(rememberedEmails),
		slots:      make(chan struct{}, maxConcurrentOverall),
		wake:       make(chan struct{}, 1),
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if cfg.Shared != nil {
		e.shared = cfg.Shared
		if err := e.Reload(e.ctx); err != nil {
			return nil, fmt.Errorf("load webhooks: %w", err)
		}
		claimCtx, stop := context.WithCancel(e.ctx)
		e.stopClaims = stop
		e.claiming.Add(1)
		go func() {
			defer e.claiming.Done()
			e.claimLoop(claimCtx)
		}()
	} else if cfg.DataDir != "" {
		if e.store, err = openDiskStore(cfg.DataDir); err != nil {
			return nil, err
		}
		if err := e.restore(); err != nil {
			_ = e.store.close()
			return nil, err
		}
	}
	go e.dispatchLoop()
	return e, nil
}

// restore loads the stored webhooks and schedules their pending retries,
// oldest delivery first; new sequence numbers continue after the stored ones.
func (e *Engine) restore() error {
	recs, retries, err := e.store.load()
	if err != nil {
		return err
	}
	var last uint64
	for _, r := range recs {
		last = max(last, r.Seq)
	}
	for _, p := range retries {
		last = max(last, p.Seq)
	}
	e.seq.Store(last)
	slices.SortFunc(retries, func(a, b pending) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), a.Due.Compare(b.Due), strings.Compare(a.DeliveryID, b.DeliveryID))
	})
	for _, r := range recs {
		filter, _, tmpl, err := e.cfg.compileParts(r.Filter, r.Template)
		if err != nil {
			e.log.Error("stored webhook is invalid; it is skipped", "webhook", r.ID, "error", err)
			continue
		}
		e.hooks[r.ID] = newHook(r, filter, tmpl)
	}
	now := e.cfg.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range retries {
		h, ok := e.hooks[p.WebhookID]
		if !ok {
			if err := e.store.deleteRetry(p.WebhookID, p.DeliveryID); err != nil {
				return err
			}
			continue
		}
		h.queuedRetries++
		e.scheduleLocked(&delivery{pending: p, persisted: true}, max(p.Due.Sub(now), 0))
	}
	return nil
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

// ForgetInbox drops the webhooks of a deleted or expired inbox, with their
// pending retries.
func (e *Engine) ForgetInbox(address string) {
	e.mu.Lock()
	var gone []string
	for id, h := range e.hooks {
		if h.rec.Scope == model.ScopeInbox && strings.EqualFold(h.rec.InboxEmail, address) {
			e.removeLocked(id)
			gone = append(gone, id)
		}
	}
	e.memo.forgetInbox(address)
	e.mu.Unlock()
	if e.shared != nil {
		return // the store dropped them with the inbox
	}
	for _, id := range gone {
		if err := e.store.deleteHook(id); err != nil {
			e.log.Error("forget webhook of deleted inbox", "webhook", id, "error", err)
		}
	}
}

// removeLocked drops a webhook from memory and stops its retries.
func (e *Engine) removeLocked(id string) {
	delete(e.hooks, id)
	for dlv, t := range e.timers {
		if t.delivery.WebhookID == id {
			t.timer.Stop()
			delete(e.timers, dlv)
		}
	}
}

// Close stops intake, lets queued events and in-flight attempts finish
// until ctx ends, then cancels the rest. With DataDir, unfinished
// deliveries and pending retries stay on disk for the next start.
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
	if e.stopClaims != nil {
		e.stopClaims()
		e.claiming.Wait()
	}
	e.mu.Lock()
	e.closing = true
	for dlv, t := range e.timers {
		t.timer.Stop()
		delete(e.timers, dlv)
	}
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

	e.mu.Lock()
	recs := make([]record, 0, len(e.hooks))
	for _, h := range e.hooks {
		recs = append(recs, h.rec)
	}
	e.mu.Unlock()
	// (A shared store keeps stats as they change.)
	if err := e.store.putHooks(recs...); err != nil {
		errs = append(errs, err)
	}
	if err := e.store.close(); err != nil {
		errs = append(errs, err)
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

// nextSeq hands out the next creation sequence number. Webhooks and
// deliveries take theirs when they are created and keep it on disk, so
// "oldest first" is a total order that a coarse clock or a restart cannot
// shuffle.
func (e *Engine) nextSeq() uint64 { return e.seq.Add(1) }

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
