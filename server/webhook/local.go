package webhook

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"sandview/server/store"
)

// localMode keeps the webhooks in the engine: with Config.Records also in
// the server's store, with pending retries, so that both survive a
// restart of a durable one; without, in the engine only (disk is nil and
// writes nothing).
type localMode struct {
	e    *Engine
	disk *diskStore
}

// load loads the stored webhooks and schedules their pending retries,
// oldest delivery first; new sequence numbers continue after the stored
// ones.
func (m *localMode) load() error {
	return m.restore()
}

func (m *localMode) restore() error {
	e := m.e
	recs, retries, err := m.disk.load()
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
			if err := m.disk.deleteRetry(p.WebhookID, p.DeliveryID); err != nil {
				return err
			}
			continue
		}
		h.queuedRetries++
		m.scheduleLocked(&delivery{pending: p, persisted: true}, max(p.Due.Sub(now), 0))
	}
	return nil
}

func (m *localMode) reload(context.Context) error { return nil }

func (m *localMode) saveHook(rec record) error { return m.disk.putHooks(rec) }

func (m *localMode) deleteHook(id string) error { return m.disk.deleteHook(id) }

func (m *localMode) forgetHooks(ids []string) {
	for _, id := range ids {
		if err := m.disk.deleteHook(id); err != nil {
			m.e.log.Error("forget webhook of deleted inbox", "webhook", id, "error", err)
		}
	}
}

func (m *localMode) prepare(*store.Batch, []Incoming) error { return nil }

func (m *localMode) deliver(ds []*delivery) error {
	for _, d := range ds {
		m.e.start(d)
	}
	return nil
}

func (m *localMode) wake() {}

// suspend keeps the delivery on disk for the next start (in memory it is
// lost with the process).
func (m *localMode) suspend(d *delivery) {
	d.Due = m.e.cfg.Now()
	if err := m.disk.putRetry(d.pending); err != nil {
		m.e.log.Error("keep webhook delivery for the next start", "webhook", d.WebhookID, "delivery", d.DeliveryID, "error", err)
	}
}

func (m *localMode) discard(d *delivery) {
	if !d.persisted {
		return
	}
	if err := m.disk.deleteRetry(d.WebhookID, d.DeliveryID); err != nil {
		m.e.log.Error("drop webhook retry", "delivery", d.DeliveryID, "error", err)
	}
}

func (m *localMode) record(h *hook, d *delivery, ok bool) {
	e := m.e
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
			next.persisted = m.disk != nil
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
		m.queueRetry(h, retry)
	} else if finished {
		m.discard(d)
	}
	if save != nil {
		if err := m.disk.putHooks(*save); err != nil {
			e.log.Error("save disabled webhook", "webhook", save.ID, "error", err)
		}
	}
}

// queueRetry writes a retry to disk, then arms its timer (in this order,
// so that a quick retry cannot finish before its record is written).
func (m *localMode) queueRetry(h *hook, retry *delivery) {
	e := m.e
	if err := m.disk.putRetry(retry.pending); err != nil {
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
		m.scheduleLocked(retry, max(retry.Due.Sub(e.cfg.Now()), 0))
	}
	e.mu.Unlock()
	if gone {
		m.discard(retry)
	}
}

// scheduleLocked arms the timer of a queued retry.
func (m *localMode) scheduleLocked(d *delivery, delay time.Duration) {
	t := &retryTimer{delivery: d}
	t.timer = time.AfterFunc(delay, func() { m.retryDue(d) })
	m.e.timers[d.DeliveryID] = t
}

// retryDue starts a retry whose time has come.
func (m *localMode) retryDue(d *delivery) {
	e := m.e
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
		m.discard(d)
		return
	}
	e.start(d)
}

func (m *localMode) halt() {}

// close writes every webhook's record (with its stats); the store is the
// server's to close.
func (m *localMode) close() error {
	e := m.e
	e.mu.Lock()
	recs := make([]record, 0, len(e.hooks))
	for _, h := range e.hooks {
		recs = append(recs, h.rec)
	}
	e.mu.Unlock()
	return m.disk.putHooks(recs...)
}
