package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"sandview/server/store"
)

// The engine keeps the webhooks and their delivery queue in the server's
// store (Config.Store), which the engines of several replicas may share.
// Each engine caches the webhooks (reloaded on the other replicas' notices
// and before every route) and the store keeps what deliveries change, so
// that stats stay right whichever engine delivers. A new email's
// deliveries are queued in its own commit (Prepare); other events' when
// dispatched. An engine claims due deliveries (claimLoop) up to its free
// slots, for a lease; a replica that dies mid-attempt leaves its claims to
// lapse and be taken over, so an attempt in flight at its death may be
// made twice. A delivery not finished at Close stays queued for the next
// start (in a durable store).

// Queue pacing.
const (
	// claimPoll is the longest wait between claims when nothing wakes the
	// loop.
	claimPoll = time.Second
	// finishTimeout bounds recording an attempt's outcome.
	finishTimeout = 5 * time.Second
)

// lease is how long a claim lasts: two attempts' time and a second.
func (cfg Config) lease() time.Duration { return 2*cfg.Timeout + time.Second }

// queue is the engine's side of the store's delivery queue: every
// delivery the engine starts is one it claimed.
type queue struct {
	store store.Webhooks
	// wakeup starts a claim of due deliveries; claimed counts the claimed
	// deliveries not yet finished; stopClaims ends the claim loop, which
	// claiming tracks.
	wakeup     chan struct{}
	claimed    atomic.Int64
	stopClaims context.CancelFunc
	claiming   sync.WaitGroup
	// version is the stored webhooks' version the cache holds (e.mu).
	version uint64
}

// load loads the webhooks and starts the claim loop.
func (e *Engine) load() error {
	if err := e.Reload(e.ctx); err != nil {
		return fmt.Errorf("load webhooks: %w", err)
	}
	claimCtx, stop := context.WithCancel(e.ctx)
	e.q.stopClaims = stop
	e.q.claiming.Add(1)
	go func() {
		defer e.q.claiming.Done()
		claims{e}.claimLoop(claimCtx)
	}()
	return nil
}

// Reload refreshes the cached webhooks from the store (where other
// replicas may change them too): settings, enabled flags and stats.
func (e *Engine) Reload(ctx context.Context) error {
	rows, version, err := e.q.store.LoadWebhooks(ctx)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.q.version = version
	keep := make(map[string]bool, len(rows))
	for _, row := range rows {
		keep[row.ID] = true
		if h, ok := e.hooks[row.ID]; ok && bytes.Equal(h.stored, row.Record) {
			applyRow(&h.rec, row)
			continue
		}
		var rec record
		if err := json.Unmarshal(row.Record, &rec); err != nil {
			e.log.Error("stored webhook is unreadable; it is skipped", "webhook", row.ID, "error", err)
			continue
		}
		applyRow(&rec, row)
		filter, _, tmpl, err := e.cfg.compileParts(rec.Filter, rec.Template)
		if err != nil {
			e.log.Error("stored webhook is invalid; it is skipped", "webhook", row.ID, "error", err)
			continue
		}
		h := newHook(rec, filter, tmpl)
		if old, ok := e.hooks[row.ID]; ok {
			h.slots = old.slots // attempts in flight keep their slots
		}
		h.stored = row.Record
		e.hooks[row.ID] = h
	}
	for id := range e.hooks {
		if !keep[id] {
			delete(e.hooks, id)
		}
	}
	return nil
}

// applyRow copies what the store keeps in its own fields into a record.
func applyRow(rec *record, row store.WebhookRow) {
	rec.Seq = row.Seq
	rec.Enabled = row.Enabled
	rec.ConsecutiveFailures = row.Stats.ConsecutiveFailures
	rec.Stats.TotalDeliveries = int(row.Stats.Total)
	rec.Stats.SuccessfulDeliveries = int(row.Stats.Successful)
	rec.Stats.FailedDeliveries = int(row.Stats.Failed)
	rec.LastDeliveryAt, rec.LastDeliveryStatus = nil, ""
	if !row.Stats.LastDeliveryAt.IsZero() {
		at := row.Stats.LastDeliveryAt
		rec.LastDeliveryAt = &at
		rec.LastDeliveryStatus = statusText(row.Stats.LastDeliveryOK)
	}
}

// saveHook writes a webhook's record; the store numbers new ones.
func (e *Engine) saveHook(rec record) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode webhook: %w", err)
	}
	seq, err := e.q.store.SaveWebhook(e.ctx, store.WebhookRow{ID: rec.ID, InboxHash: rec.InboxHash, Record: data, Enabled: rec.Enabled})
	if err != nil {
		return err
	}
	e.mu.Lock()
	if h, ok := e.hooks[rec.ID]; ok {
		h.rec.Seq, h.stored = seq, data
	}
	e.mu.Unlock()
	return nil
}

// Prepare renders events' deliveries into an email's commit: it fills
// the batch's Deliveries and the webhook version they were rendered at (a
// store refuses the batch with store.ErrStale when the webhooks have
// changed since: Reload and prepare again). It does nothing with the
// webhook system off.
func (e *Engine) Prepare(batch *store.Batch, events []Incoming) error {
	if !e.cfg.Enabled {
		return nil
	}
	e.mu.Lock()
	version := e.q.version
	e.mu.Unlock()
	var out []store.QueuedDelivery
	for _, ev := range events {
		ds, err := e.render(ev)
		if err != nil {
			return err
		}
		q, err := queued(ds)
		if err != nil {
			return err
		}
		out = append(out, q...)
	}
	batch.Deliveries, batch.CheckWebhooks, batch.WebhookVersion = out, true, version
	return nil
}

func queued(ds []*delivery) ([]store.QueuedDelivery, error) {
	out := make([]store.QueuedDelivery, len(ds))
	for i, d := range ds {
		data, err := json.Marshal(d.pending)
		if err != nil {
			return nil, fmt.Errorf("encode delivery: %w", err)
		}
		out[i] = store.QueuedDelivery{ID: d.DeliveryID, WebhookID: d.WebhookID, Attempt: d.Attempt, Pending: data}
	}
	return out, nil
}

// deliver queues the deliveries for whichever engine claims them.
func (e *Engine) deliver(ds []*delivery) error {
	if len(ds) == 0 {
		return nil
	}
	q, err := queued(ds)
	if err == nil {
		err = e.q.store.EnqueueDeliveries(e.ctx, q)
	}
	e.Wake()
	return err
}

// Wake makes the engine look for due deliveries now (they were queued
// with a commit, or by another replica).
func (e *Engine) Wake() {
	select {
	case e.q.wakeup <- struct{}{}:
	default:
	}
}
