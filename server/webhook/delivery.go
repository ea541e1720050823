package webhook

import "time"

// retryTimer is a scheduled retry: the delivery and the timer that starts
// it.
type retryTimer struct {
	delivery *delivery
	timer    *time.Timer
}

// delivery is one event on its way to one webhook.
type delivery struct {
	pending
	persisted bool // a retry record exists on disk
	claimed   bool // taken from the shared queue (shared mode)
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
	if d.claimed {
		e.releaseShared(d, false)
		return
	}
	if e.store == nil {
		return
	}
	d.Due = e.cfg.Now()
	if err := e.store.putRetry(d.pending); err != nil {
		e.log.Error("keep webhook delivery for the next start", "webhook", d.WebhookID, "delivery", d.DeliveryID, "error", err)
	}
}

// interrupt keeps a delivery that shutdown cut off for the next start, and
// counts it for Close's report.
func (e *Engine) interrupt(d *delivery) {
	e.interrupted.Add(1)
	e.suspend(d)
}

// scheduleLocked arms the timer of a queued retry.
func (e *Engine) scheduleLocked(d *delivery, delay time.Duration) {
	t := &retryTimer{delivery: d}
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
	if d.claimed {
		e.releaseShared(d, true)
		return
	}
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
		e.interrupt(d)
		return
	}
	defer func() { <-h.slots }()
	select {
	case e.slots <- struct{}{}:
	case <-e.ctx.Done():
		e.interrupt(d)
		return
	}
	defer func() { <-e.slots }()

	e.mu.Lock()
	current := e.hooks[d.WebhookID] == h
	url, secrets, enabled := h.rec.URL, h.rec.validSecrets(e.cfg.Now()), h.rec.Enabled
	e.mu.Unlock()
	if !current || !enabled {
		e.discard(d)
		return
	}
	res := e.send(e.ctx, url, secrets, d.EventType, d.DeliveryID, d.Body, d.ContentType)
	if e.ctx.Err() != nil {
		e.interrupt(d) // not an attempt
		return
	}
	if !res.ok() {
		e.log.Debug("webhook attempt failed", "webhook", d.WebhookID, "delivery", d.DeliveryID,
			"attempt", d.Attempt, "status", res.status, "error", res.err)
	}
	e.recordAttempt(h, d, res.ok())
}

// recordAttempt updates stats, schedules the next attempt or ends the
// delivery, and disables the webhook after too many failed deliveries.
func (e *Engine) recordAttempt(h *hook, d *delivery, ok bool) {
	if d.claimed {
		e.finishShared(h, d, ok)
		return
	}
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
