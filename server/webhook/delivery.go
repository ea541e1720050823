package webhook

import "time"

// pending is a delivery as the store queues it (in its Pending field).
type pending struct {
	WebhookID   string    `json:"webhookId"`
	EventID     string    `json:"eventId"`
	DeliveryID  string    `json:"deliveryId"`
	EventType   string    `json:"eventType"`
	Body        []byte    `json:"body"`
	ContentType string    `json:"contentType"`
	Attempt     int       `json:"attempt"` // number of the next attempt, from 1
	Due         time.Time `json:"due"`
	Seq         uint64    `json:"seq"` // queue order, numbered by the store
}

// delivery is one event on its way to one webhook.
type delivery struct{ pending }

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

// interrupt keeps a delivery that shutdown cut off for the next start, and
// counts it for Close's report.
func (e *Engine) interrupt(d *delivery) {
	e.interrupted.Add(1)
	e.suspend(d)
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
	e.record(h, d, res.ok())
}

func statusText(ok bool) string {
	if ok {
		return "success"
	}
	return "failed"
}
