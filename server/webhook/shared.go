package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"sandview/server/store"
)

// Shared mode (Config.Shared): several engines, one per replica, share the
// webhooks and a delivery queue in the store. Each engine caches the
// webhooks (reloaded on the other replicas' notices and before every
// route) and the store keeps what deliveries change, so that stats stay
// right whichever replica delivers. A new email's deliveries are queued in
// its own commit (Prepare); other events' when dispatched. Every replica
// claims due deliveries (claimLoop) up to its free slots, for a lease; a
// replica that dies mid-attempt leaves its claims to lapse and be taken
// over, so an attempt in flight at its death may be made twice.

// Shared-mode pacing.
const (
	// claimPoll is the longest wait between claims when nothing wakes the
	// loop.
	claimPoll = time.Second
	// finishTimeout bounds recording an attempt's outcome.
	finishTimeout = 5 * time.Second
)

// lease is how long a claim lasts: two attempts' time and a second.
func (cfg Config) lease() time.Duration { return 2*cfg.Timeout + time.Second }

// Reload refreshes the cached webhooks from the shared store (nothing to do
// otherwise): settings, enabled flags and stats.
func (e *Engine) Reload(ctx context.Context) error {
	if e.shared == nil {
		return nil
	}
	rows, version, err := e.shared.LoadWebhooks(ctx)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.version = version
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
			e.removeLocked(id)
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

// saveHook writes a webhook's record: to the shared store (which numbers
// new ones) or the engine's file.
func (e *Engine) saveHook(rec record) error {
	if e.shared == nil {
		return e.store.putHooks(rec)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode webhook: %w", err)
	}
	seq, err := e.shared.SaveWebhook(e.ctx, store.WebhookRow{ID: rec.ID, InboxHash: rec.InboxHash, Record: data, Enabled: rec.Enabled})
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

// deleteHook removes a webhook's record and its pending deliveries.
func (e *Engine) deleteHook(id string) error {
	if e.shared == nil {
		return e.store.deleteHook(id)
	}
	return e.shared.DeleteWebhook(e.ctx, id)
}

// Prepare renders events' deliveries for the shared queue, to be
// committed with the email: it fills the batch's Deliveries and the
// webhook version they were rendered at (a store refuses the batch with
// store.ErrStale when the webhooks have changed since: Reload and prepare
// again). It does nothing without a shared store or with the webhook
// system off.
func (e *Engine) Prepare(batch *store.Batch, events []Incoming) error {
	if e.shared == nil || !e.cfg.Enabled {
		return nil
	}
	e.mu.Lock()
	version := e.version
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

// Wake makes the claim loop look for due deliveries now.
func (e *Engine) Wake() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// claimLoop claims due deliveries while the engine runs.
func (e *Engine) claimLoop(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.wake:
		case <-timer.C:
		}
		wait := claimPoll
		free := cap(e.slots) - int(e.claimed.Load())
		claimed, next, err := e.shared.ClaimDeliveries(ctx, free, e.cfg.lease())
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			e.log.Warn("claiming webhook deliveries failed; retrying", "error", err)
		}
		for _, q := range claimed {
			var p pending
			if err := json.Unmarshal(q.Pending, &p); err != nil {
				e.log.Error("queued webhook delivery is unreadable; dropped", "delivery", q.ID, "error", err)
				_ = e.shared.DropDelivery(ctx, q.ID)
				continue
			}
			p.Attempt, p.Due, p.Seq = q.Attempt, q.Due, q.Seq
			e.claimed.Add(1)
			e.start(&delivery{pending: p, claimed: true})
		}
		if !next.IsZero() {
			wait = min(wait, max(time.Until(next), time.Millisecond))
		}
		timer.Reset(wait)
	}
}

// finishShared records an attempt of a claimed delivery in the store and
// refreshes the cached webhook from the answer.
func (e *Engine) finishShared(h *hook, d *delivery, ok bool) {
	defer e.unclaim(d)
	now := e.cfg.Now()
	e.mu.Lock()
	current := e.hooks[d.WebhookID] == h && h.rec.Enabled && !e.closing
	e.mu.Unlock()
	a := store.Attempt{
		Delivery: store.QueuedDelivery{ID: d.DeliveryID, WebhookID: d.WebhookID, Attempt: d.Attempt},
		At:       now.UTC().Truncate(time.Millisecond), OK: ok,
		MaxRetries: e.cfg.MaxQueuedRetriesPerWebhook, DisableAfter: failuresBeforeDisable,
	}
	if !ok && d.Attempt < e.cfg.MaxAttempts && current {
		a.RetryAt = now.Add(e.cfg.retryDelay(d.Attempt + 1))
	}
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	row, found, err := e.shared.FinishAttempt(ctx, a)
	if err != nil {
		e.log.Error("recording a webhook attempt failed; the delivery is retried when its claim lapses", "delivery", d.DeliveryID, "error", err)
		return
	}
	if !found {
		return
	}
	e.mu.Lock()
	if e.hooks[d.WebhookID] == h {
		wasEnabled := h.rec.Enabled
		applyRow(&h.rec, row)
		if wasEnabled && !h.rec.Enabled {
			e.log.Warn("webhook disabled after consecutive failed deliveries", "webhook", h.rec.ID, "failures", h.rec.ConsecutiveFailures)
		}
	}
	e.mu.Unlock()
}

// unclaim ends a claimed delivery's hold on this replica's capacity.
func (e *Engine) unclaim(d *delivery) {
	if d.claimed {
		e.claimed.Add(-1)
		e.Wake()
	}
}

// releaseShared gives a claimed delivery back (shutdown) or drops it (its
// webhook is gone or disabled).
func (e *Engine) releaseShared(d *delivery, drop bool) {
	defer e.unclaim(d)
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	var err error
	if drop {
		err = e.shared.DropDelivery(ctx, d.DeliveryID)
	} else {
		err = e.shared.ReleaseDelivery(ctx, d.DeliveryID)
	}
	if err != nil {
		e.log.Warn("giving a webhook delivery back failed; its claim will lapse", "delivery", d.DeliveryID, "error", err)
	}
}
