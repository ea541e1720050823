package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

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
	inboxes Inboxes
	log     *slog.Logger
	store   *diskStore

	// intakeMu guards the queue against Close; Handle never waits on mu.
	intakeMu     sync.Mutex
	intakeClosed bool
	queue        chan Incoming
	dispatched   chan struct{} // closed when the dispatcher has drained the queue

	mu      sync.Mutex
	hooks   map[string]*hook
	timers  map[string]*retryTimer // by delivery id
	memo    *emailMemo
	closing bool

	slots   chan struct{} // concurrent deliveries overall
	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup // delivery goroutines
}

// retryTimer is a scheduled retry.
type retryTimer struct {
	webhookID string
	timer     *time.Timer
}

// delivery is one event on its way to one webhook.
type delivery struct {
	pending
	persisted bool // a retry record exists on disk
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
		inboxes:    inboxes,
		log:        cfg.Logger,
		queue:      make(chan Incoming, incomingQueueSize),
		dispatched: make(chan struct{}),
		hooks:      make(map[string]*hook),
		timers:     make(map[string]*retryTimer),
		memo:       newEmailMemo(rememberedEmails),
		slots:      make(chan struct{}, maxConcurrentOverall),
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if cfg.DataDir != "" {
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

// restore loads the stored webhooks and schedules their pending retries.
func (e *Engine) restore() error {
	recs, retries, err := e.store.load()
	if err != nil {
		return err
	}
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
		if t.webhookID == id {
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
		errs = append(errs, fmt.Errorf("webhook deliveries still running at shutdown were interrupted: %w", ctx.Err()))
		e.cancel()
		<-done
	}
	e.cancel()

	e.mu.Lock()
	recs := make([]record, 0, len(e.hooks))
	for _, h := range e.hooks {
		recs = append(recs, h.rec)
	}
	e.mu.Unlock()
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

// dispatchLoop turns queued events into deliveries until the queue closes.
func (e *Engine) dispatchLoop() {
	defer close(e.dispatched)
	for ev := range e.queue {
		if err := e.dispatch(ev); err != nil {
			e.log.Error("webhook event not dispatched", "type", ev.Type, "email", ev.EmailID, "error", err)
		}
	}
}

// target is a webhook as the dispatcher sees it at one event.
type target struct {
	id         string
	subscribed bool
	filter     *compiledFilter
	template   *compiledTemplate
}

// dispatch filters an event per webhook, renders it, and starts its
// deliveries.
func (e *Engine) dispatch(ev Incoming) error {
	now := e.cfg.Now()
	at := ev.At
	if at.IsZero() {
		at = now
	}
	e.mu.Lock()
	var targets []target
	for id, h := range e.hooks {
		if !h.rec.Enabled || !h.inScope(ev.InboxHash, ev.InboxEmail) {
			continue
		}
		subscribed := h.subscribes(ev.Type)
		if !subscribed && (ev.Type != model.EventEmailReceived || !h.filter.needsContent()) {
			continue
		}
		targets = append(targets, target{id: id, subscribed: subscribed, filter: h.filter, template: h.template})
	}
	remembered, known := e.memo.get(ev.EmailID)
	e.mu.Unlock()

	var summary *emailSummary
	passes := func(t target) bool { return !t.filter.needsContent() }
	switch ev.Type {
	case model.EventEmailReceived:
		entry := memoEntry{inbox: ev.InboxEmail, passed: map[string]bool{}}
		if ev.Received != nil {
			entry.summary = summaryOf(ev.Received)
			for _, t := range targets {
				if t.filter.needsContent() {
					entry.passed[t.id] = t.filter.match(ev.Received)
				}
			}
		}
		e.mu.Lock()
		e.memo.put(ev.EmailID, entry)
		e.mu.Unlock()
		passes = func(t target) bool { return !t.filter.needsContent() || entry.passed[t.id] }
	default:
		if known {
			summary = &remembered.summary
			passes = func(t target) bool { return !t.filter.needsContent() || remembered.passed[t.id] }
		}
		if ev.Type == model.EventEmailDeleted {
			e.mu.Lock()
			e.memo.forget(ev.EmailID)
			e.mu.Unlock()
		}
	}

	view, err := newEventView(ev, newID("evt_"), at, e.cfg.MaxHeaders, e.cfg.MaxHeaderValueLen, summary)
	if err != nil {
		return err
	}
	builtins := map[string][]byte{}
	for _, t := range targets {
		if !t.subscribed || !passes(t) {
			continue
		}
		body, ok := builtins[t.template.kind]
		if !ok || t.template.kind == model.TemplateCustom {
			if body, err = t.template.render(view); err != nil {
				e.log.Error("webhook template failed; event skipped", "webhook", t.id, "error", err)
				continue
			}
			builtins[t.template.kind] = body
		}
		e.start(&delivery{pending: pending{
			WebhookID: t.id, EventID: view.envelope.ID, DeliveryID: newID("dlv_"), EventType: ev.Type,
			Body: body, ContentType: t.template.contentType, Attempt: 1, Due: now,
		}})
	}
	return nil
}

// start runs a delivery's next attempt in its own goroutine, unless the
// engine is shutting down (then it is kept for the next start).
func (e *Engine) start(d *delivery) {
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		e.suspend(d)
		return
	}
	e.running.Add(1)
	e.mu.Unlock()
	go func() {
		defer e.running.Done()
		e.attempt(d)
	}()
}

// suspend keeps an unfinished delivery on disk for the next start (in
// memory mode it is lost with the process).
func (e *Engine) suspend(d *delivery) {
	if e.store == nil {
		return
	}
	d.Due = e.cfg.Now()
	if err := e.store.putRetry(d.pending); err != nil {
		e.log.Error("keep webhook delivery for the next start", "webhook", d.WebhookID, "delivery", d.DeliveryID, "error", err)
	}
}

// scheduleLocked arms the timer of a queued retry.
func (e *Engine) scheduleLocked(d *delivery, delay time.Duration) {
	t := &retryTimer{webhookID: d.WebhookID}
	t.timer = time.AfterFunc(delay, func() { e.retryDue(d) })
	e.timers[d.DeliveryID] = t
}

// retryDue starts a retry whose time has come.
func (e *Engine) retryDue(d *delivery) {
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		return // it stays on disk
	}
	delete(e.timers, d.DeliveryID)
	h, ok := e.hooks[d.WebhookID]
	if ok {
		h.queuedRetries--
	}
	enabled := ok && h.rec.Enabled
	e.mu.Unlock()
	if !enabled {
		e.discard(d)
		return
	}
	e.start(d)
}

// discard drops a delivery whose webhook is gone or disabled.
func (e *Engine) discard(d *delivery) {
	if !d.persisted {
		return
	}
	if err := e.store.deleteRetry(d.WebhookID, d.DeliveryID); err != nil {
		e.log.Error("drop webhook retry", "delivery", d.DeliveryID, "error", err)
	}
}

// attempt makes one attempt of a delivery within the concurrency caps and
// records its outcome.
func (e *Engine) attempt(d *delivery) {
	e.mu.Lock()
	h, ok := e.hooks[d.WebhookID]
	e.mu.Unlock()
	if !ok {
		e.discard(d)
		return
	}
	select {
	case h.slots <- struct{}{}:
	case <-e.ctx.Done():
		e.suspend(d)
		return
	}
	defer func() { <-h.slots }()
	select {
	case e.slots <- struct{}{}:
	case <-e.ctx.Done():
		e.suspend(d)
		return
	}
	defer func() { <-e.slots }()

	e.mu.Lock()
	current := e.hooks[d.WebhookID] == h
	url, secret, enabled := h.rec.URL, h.rec.Secret, h.rec.Enabled
	e.mu.Unlock()
	if !current || !enabled {
		e.discard(d)
		return
	}
	res := e.send(e.ctx, url, secret, d.EventType, d.DeliveryID, d.Body, d.ContentType)
	if e.ctx.Err() != nil {
		e.suspend(d) // interrupted by shutdown: not an attempt
		return
	}
	if !res.ok() {
		e.log.Debug("webhook attempt failed", "webhook", d.WebhookID, "delivery", d.DeliveryID,
			"attempt", d.Attempt, "status", res.status, "error", res.errText())
	}
	e.recordAttempt(h, d, res.ok())
}

// recordAttempt updates stats, schedules the next attempt or ends the
// delivery, and disables the webhook after too many failed deliveries.
func (e *Engine) recordAttempt(h *hook, d *delivery, ok bool) {
	now := e.cfg.Now()
	var save *record
	var retry *delivery
	e.mu.Lock()
	r := &h.rec
	stamp := now.UTC().Truncate(time.Millisecond)
	r.LastDeliveryAt = &stamp
	r.LastDeliveryStatus = statusText(ok)
	finished := true
	switch {
	case ok:
		r.Stats.TotalDeliveries++
		r.Stats.SuccessfulDeliveries++
		r.ConsecutiveFailures = 0
	case d.Attempt < e.cfg.MaxAttempts && r.Enabled && e.hooks[r.ID] == h && !e.closing:
		if h.queuedRetries < e.cfg.MaxQueuedRetriesPerWebhook {
			finished = false
			h.queuedRetries++
			next := *d
			next.Attempt++
			next.Due = now.Add(e.cfg.retryDelay(next.Attempt))
			next.persisted = e.store != nil
			retry = &next
			break
		}
		e.log.Warn("webhook retry queue is full; delivery failed", "webhook", r.ID, "delivery", d.DeliveryID)
		fallthrough
	default:
		r.Stats.TotalDeliveries++
		r.Stats.FailedDeliveries++
		r.ConsecutiveFailures++
		if r.ConsecutiveFailures >= failuresBeforeDisable && r.Enabled {
			r.Enabled = false
			r.UpdatedAt = &stamp
			e.log.Warn("webhook disabled after consecutive failed deliveries", "webhook", r.ID, "failures", r.ConsecutiveFailures)
			copied := *r
			save = &copied
		}
	}
	e.mu.Unlock()
	if retry != nil {
		e.queueRetry(h, retry)
	} else if finished {
		e.discard(d)
	}
	if save != nil {
		if err := e.store.putHooks(*save); err != nil {
			e.log.Error("save disabled webhook", "webhook", save.ID, "error", err)
		}
	}
}

// queueRetry writes a retry to disk, then arms its timer (in this order,
// so that a quick retry cannot finish before its record is written).
func (e *Engine) queueRetry(h *hook, retry *delivery) {
	if err := e.store.putRetry(retry.pending); err != nil {
		e.log.Error("keep webhook retry", "delivery", retry.DeliveryID, "error", err)
	}
	e.mu.Lock()
	gone := false
	switch {
	case e.closing:
		// it stays on disk for the next start
	case e.hooks[retry.WebhookID] != h:
		h.queuedRetries--
		gone = true
	default:
		e.scheduleLocked(retry, max(retry.Due.Sub(e.cfg.Now()), 0))
	}
	e.mu.Unlock()
	if gone {
		e.discard(retry)
	}
}

func statusText(ok bool) string {
	if ok {
		return "success"
	}
	return "failed"
}

// memoEntry is what the engine remembers of an email.received for the
// stored and deleted events of the same email.
type memoEntry struct {
	inbox   string
	summary emailSummary
	passed  map[string]bool // filter verdicts by webhook id
}

// emailMemo remembers the latest emails, oldest evicted first.
type emailMemo struct {
	entries map[string]memoEntry
	ring    []string
	next    int
}

func newEmailMemo(size int) *emailMemo {
	return &emailMemo{entries: make(map[string]memoEntry), ring: make([]string, size)}
}

func (m *emailMemo) put(emailID string, entry memoEntry) {
	if _, ok := m.entries[emailID]; !ok {
		if old := m.ring[m.next]; old != "" {
			delete(m.entries, old)
		}
		m.ring[m.next] = emailID
		m.next = (m.next + 1) % len(m.ring)
	}
	m.entries[emailID] = entry
}

func (m *emailMemo) get(emailID string) (memoEntry, bool) {
	entry, ok := m.entries[emailID]
	return entry, ok
}

func (m *emailMemo) forget(emailID string) { delete(m.entries, emailID) }

func (m *emailMemo) forgetInbox(address string) {
	for id, entry := range m.entries {
		if strings.EqualFold(entry.inbox, address) {
			delete(m.entries, id)
		}
	}
}

// hooksInScopeLocked returns the webhooks of a scope, oldest first.
func (e *Engine) hooksInScopeLocked(sc scope) []*hook {
	var out []*hook
	for _, h := range e.hooks {
		if sc.matches(h) {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b *hook) int {
		if c := a.rec.CreatedAt.Compare(b.rec.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.rec.ID, b.rec.ID)
	})
	return out
}
