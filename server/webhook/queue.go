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

// sharedMode keeps the webhooks and the delivery queue in the shared store
// (Config.Shared); every delivery it starts is one it claimed.
type sharedMode struct {
	e     *Engine
	store store.Webhooks
	// wakeup starts a claim of due deliveries; claimed counts the claimed
	// deliveries not yet finished; stopClaims ends the claim loop, which
	// claiming tracks.
	wakeup     chan struct{}
	claimed    atomic.Int64
	stopClaims context.CancelFunc
	claiming   sync.WaitGroup
	// version is the shared webhooks' version the cache holds (e.mu).
	version uint64
}

func newSharedMode(e *Engine, st store.Webhooks) *sharedMode {
	return &sharedMode{e: e, store: st, wakeup: make(chan struct{}, 1)}
}

// load loads the webhooks and starts the claim loop.
func (m *sharedMode) load() error {
	if err := m.reload(m.e.ctx); err != nil {
		return fmt.Errorf("load webhooks: %w", err)
	}
	claimCtx, stop := context.WithCancel(m.e.ctx)
	m.stopClaims = stop
	m.claiming.Add(1)
	go func() {
		defer m.claiming.Done()
		m.claimLoop(claimCtx)
	}()
	return nil
}

// reload refreshes the cached webhooks: settings, enabled flags and stats.
func (m *sharedMode) reload(ctx context.Context) error {
	e := m.e
	rows, version, err := m.store.LoadWebhooks(ctx)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	m.version = version
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

// saveHook writes a webhook's record; the store numbers new ones.
func (m *sharedMode) saveHook(rec record) error {
	e := m.e
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode webhook: %w", err)
	}
	seq, err := m.store.SaveWebhook(e.ctx, store.WebhookRow{ID: rec.ID, InboxHash: rec.InboxHash, Record: data, Enabled: rec.Enabled})
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

func (m *sharedMode) deleteHook(id string) error { return m.store.DeleteWebhook(m.e.ctx, id) }

// forgetHooks has nothing to do: the store dropped them with the inbox.
func (m *sharedMode) forgetHooks([]string) {}

// prepare renders the deliveries into the batch, with the webhook version
// they were rendered at.
func (m *sharedMode) prepare(batch *store.Batch, events []Incoming) error {
	e := m.e
	e.mu.Lock()
	version := m.version
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

// deliver queues the deliveries for whichever replica claims them.
func (m *sharedMode) deliver(ds []*delivery) error {
	q, err := queued(ds)
	if err == nil {
		err = m.store.EnqueueDeliveries(m.e.ctx, q)
	}
	m.wake()
	return err
}

// wake makes the claim loop look for due deliveries now.
func (m *sharedMode) wake() {
	select {
	case m.wakeup <- struct{}{}:
	default:
	}
}

// claimLoop claims due deliveries while the engine runs.
func (m *sharedMode) claimLoop(ctx context.Context) {
	e := m.e
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.wakeup:
		case <-timer.C:
		}
		wait := claimPoll
		free := cap(e.slots) - int(m.claimed.Load())
		claimed, next, err := m.store.ClaimDeliveries(ctx, free, e.cfg.lease())
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
				_ = m.store.DropDelivery(ctx, q.ID)
				continue
			}
			p.Attempt, p.Due, p.Seq = q.Attempt, q.Due, q.Seq
			m.claimed.Add(1)
			e.start(&delivery{pending: p})
		}
		if !next.IsZero() {
			wait = min(wait, max(time.Until(next), time.Millisecond))
		}
		timer.Reset(wait)
	}
}

// record records the attempt in the store and refreshes the cached
// webhook from the answer.
func (m *sharedMode) record(h *hook, d *delivery, ok bool) {
	e := m.e
	defer m.unclaim()
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
	row, found, err := m.store.FinishAttempt(ctx, a)
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
func (m *sharedMode) unclaim() {
	m.claimed.Add(-1)
	m.wake()
}

// suspend gives the delivery back for any replica to take at once.
func (m *sharedMode) suspend(d *delivery) { m.release(d, false) }

// discard drops the delivery without counting it.
func (m *sharedMode) discard(d *delivery) { m.release(d, true) }

func (m *sharedMode) release(d *delivery, drop bool) {
	defer m.unclaim()
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	var err error
	if drop {
		err = m.store.DropDelivery(ctx, d.DeliveryID)
	} else {
		err = m.store.ReleaseDelivery(ctx, d.DeliveryID)
	}
	if err != nil {
		m.e.log.Warn("giving a webhook delivery back failed; its claim will lapse", "delivery", d.DeliveryID, "error", err)
	}
}

// halt ends the claim loop.
func (m *sharedMode) halt() {
	m.stopClaims()
	m.claiming.Wait()
}

// close has nothing to keep: the store holds stats as they change.
func (m *sharedMode) close() error { return nil }
