package webhook

import "sandview/model"

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

// dispatch renders an event's deliveries and queues them in the order the
// webhooks were created.
func (e *Engine) dispatch(ev Incoming) error {
	ds, err := e.render(ev)
	if err != nil {
		return err
	}
	return e.deliver(ds)
}

// render filters an event per webhook and renders its deliveries, in the
// order the webhooks were created.
func (e *Engine) render(ev Incoming) ([]*delivery, error) {
	now := e.cfg.Now()
	at := ev.At
	if at.IsZero() {
		at = now
	}
	e.mu.Lock()
	var targets []target
	concerned := func(h *hook) bool { return h.rec.Enabled && h.inScope(ev.InboxHash, ev.InboxEmail) }
	for _, h := range e.hooksLocked(concerned) {
		subscribed := h.subscribes(ev.Type)
		if !subscribed && (ev.Type != model.EventEmailReceived || !h.filter.needsContent()) {
			continue
		}
		targets = append(targets, target{id: h.rec.ID, subscribed: subscribed, filter: h.filter, template: h.template})
	}
	var remembered memoEntry
	known := false
	if len(targets) > 0 && ev.Type != model.EventEmailReceived {
		remembered, known = e.memo.get(ev.EmailID) // decoded only for a delivery
	}
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
					entry.passed[t.id] = t.filter.match(ev.Received, ev.AuthVerdict)
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

	if len(targets) == 0 {
		return nil, nil // the memo is kept; nothing to render
	}
	view, err := newEventView(ev, newID("evt_"), at, e.cfg.dataShape(), summary)
	if err != nil {
		return nil, err
	}
	var out []*delivery
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
		out = append(out, &delivery{pending: pending{
			WebhookID: t.id, EventID: view.envelope.ID, DeliveryID: newID("dlv_"), EventType: ev.Type,
			Body: body, ContentType: t.template.contentType, Attempt: 1, Due: now,
		}})
	}
	return out, nil
}
