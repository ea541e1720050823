package webhook

import (
	"context"
	"encoding/json"
	"time"

	"sandview/server/store"
)

// claims is the engine's handling of the deliveries it claims from the
// store's queue (see queue.go): the claim loop, each delivery's attempt,
// the recording of its outcome and the giving back of its claim.
type claims struct{ e *Engine }

// start runs a delivery's next attempt in its own goroutine, unless the
// engine is shutting down (then it is kept for the next start).
func (c claims) start(d *delivery) {
	e := c.e
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		c.suspend(d)
		return
	}
	e.running.Add(1)
	e.mu.Unlock()
	go func() {
		defer e.running.Done()
		c.attempt(d)
	}()
}

// interrupt keeps a delivery that shutdown cut off for the next start, and
// counts it for Close's report.
func (c claims) interrupt(d *delivery) {
	e := c.e
	e.interrupted.Add(1)
	c.suspend(d)
}

// attempt makes one attempt of a delivery within the concurrency caps and
// records its outcome.
func (c claims) attempt(d *delivery) {
	e := c.e
	e.mu.Lock()
	h, ok := e.hooks[d.WebhookID]
	e.mu.Unlock()
	if !ok {
		c.discard(d)
		return
	}
	select {
	case h.slots <- struct{}{}:
	case <-e.ctx.Done():
		c.interrupt(d)
		return
	}
	defer func() { <-h.slots }()
	select {
	case e.slots <- struct{}{}:
	case <-e.ctx.Done():
		c.interrupt(d)
		return
	}
	defer func() { <-e.slots }()

	e.mu.Lock()
	current := e.hooks[d.WebhookID] == h
	url, secrets, enabled := h.rec.URL, h.rec.validSecrets(e.cfg.Now()), h.rec.Enabled
	e.mu.Unlock()
	if !current || !enabled {
		c.discard(d)
		return
	}
	res := e.send(e.ctx, url, secrets, d.EventType, d.DeliveryID, d.Body, d.ContentType)
	if e.ctx.Err() != nil {
		c.interrupt(d) // not an attempt
		return
	}
	if !res.ok() {
		e.log.Debug("webhook attempt failed", "webhook", d.WebhookID, "delivery", d.DeliveryID,
			"attempt", d.Attempt, "status", res.status, "error", res.err)
	}
	c.record(h, d, res.ok())
}

// claimLoop claims due deliveries while the engine runs; with every slot
// taken it waits for one to free (unclaim wakes it).
func (c claims) claimLoop(ctx context.Context) {
	e := c.e
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.q.wakeup:
		case <-timer.C:
		}
		wait := claimPoll
		free := cap(e.slots) - int(e.q.claimed.Load())
		claimed, next, err := e.q.store.ClaimDeliveries(ctx, free, e.cfg.lease())
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
				_ = e.q.store.DropDelivery(ctx, q.ID)
				continue
			}
			p.Attempt, p.Due, p.Seq = q.Attempt, q.Due, q.Seq
			e.q.claimed.Add(1)
			c.start(&delivery{pending: p})
		}
		if !next.IsZero() && len(claimed) < free {
			wait = min(wait, max(time.Until(next), time.Millisecond))
		}
		timer.Reset(wait)
	}
}

// record records the attempt in the store and refreshes the cached
// webhook from the answer.
func (c claims) record(h *hook, d *delivery, ok bool) {
	e := c.e
	defer c.unclaim()
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
	row, found, err := e.q.store.FinishAttempt(ctx, a)
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

// unclaim ends a claimed delivery's hold on this engine's capacity.
func (c claims) unclaim() {
	e := c.e
	e.q.claimed.Add(-1)
	e.Wake()
}

// suspend gives the delivery back for any engine to take at once (or,
// at shutdown, the next start).
func (c claims) suspend(d *delivery) { c.release(d, false) }

// discard drops the delivery without counting it.
func (c claims) discard(d *delivery) { c.release(d, true) }

func (c claims) release(d *delivery, drop bool) {
	e := c.e
	defer c.unclaim()
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	var err error
	if drop {
		err = e.q.store.DropDelivery(ctx, d.DeliveryID)
	} else {
		err = e.q.store.ReleaseDelivery(ctx, d.DeliveryID)
	}
	if err != nil {
		e.log.Warn("giving a webhook delivery back failed; its claim will lapse", "delivery", d.DeliveryID, "error", err)
	}
}

// halt ends the claim loop.
func (c claims) halt() {
	e := c.e
	e.q.stopClaims()
	e.q.claiming.Wait()
}
