package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"sandview/model"
)

// scope is where a route acts: global (zero value) or one inbox.
type scope struct {
	inboxEmail, inboxHash string
}

func (sc scope) global() bool { return sc.inboxHash == "" && sc.inboxEmail == "" }

func (sc scope) matches(h *hook) bool {
	if sc.global() {
		return h.rec.Scope == model.ScopeGlobal
	}
	return h.rec.Scope == model.ScopeInbox && h.rec.InboxHash == sc.inboxHash
}

// findLocked returns the webhook id of scope sc.
func (e *Engine) findLocked(sc scope, id string) (*hook, bool) {
	h, ok := e.hooks[id]
	if !ok || !sc.matches(h) {
		return nil, false
	}
	return h, true
}

// create validates a request and adds the webhook.
func (e *Engine) create(ctx context.Context, sc scope, req model.CreateWebhookRequest) (model.Webhook, error) {
	url := strings.TrimSpace(req.URL)
	if err := e.cfg.checkURL(url); err != nil {
		return model.Webhook{}, err
	}
	if err := e.cfg.checkDestination(ctx, url); err != nil {
		return model.Webhook{}, err
	}
	events, err := checkEvents(req.Events)
	if err != nil {
		return model.Webhook{}, err
	}
	if err := checkDescription(req.Description); err != nil {
		return model.Webhook{}, err
	}
	filter, storedFilter, tmpl, err := e.cfg.compileParts(req.Filter, req.Template)
	if err != nil {
		return model.Webhook{}, err
	}
	now := e.cfg.Now().UTC().Truncate(time.Millisecond)
	rec := record{
		ID: newID("whk_"), URL: url, Events: events, Scope: model.ScopeGlobal, Enabled: true,
		Secret: newSecret(), Template: req.Template, Filter: storedFilter, Description: req.Description, CreatedAt: now,
		Seq: math.MaxUint64, // the newest until the store numbers it (saveHook)
	}
	if !sc.global() {
		rec.Scope, rec.InboxEmail, rec.InboxHash = model.ScopeInbox, sc.inboxEmail, sc.inboxHash
	}
	h := newHook(rec, filter, tmpl)
	e.mu.Lock()
	count := len(e.hooksLocked(sc.matches))
	limit := e.cfg.MaxGlobal
	if !sc.global() {
		limit = e.cfg.MaxPerInbox
	}
	if count >= limit {
		e.mu.Unlock()
		if sc.global() {
			return model.Webhook{}, &requestError{status: http.StatusConflict, msg: fmt.Sprintf("global webhook limit reached (%d)", limit)}
		}
		return model.Webhook{}, &requestError{status: http.StatusConflict, msg: fmt.Sprintf("webhook limit reached for inbox %s (%d)", sc.inboxEmail, limit)}
	}
	e.hooks[rec.ID] = h
	view := h.view(true, e.wire.fullViews)
	e.mu.Unlock()
	if err := e.saveHook(rec); err != nil {
		e.mu.Lock()
		delete(e.hooks, rec.ID)
		e.mu.Unlock()
		return model.Webhook{}, fmt.Errorf("create webhook: %w", err)
	}
	return view, nil
}

// update applies a PATCH.
func (e *Engine) update(ctx context.Context, sc scope, id string, req model.UpdateWebhookRequest) (model.Webhook, error) {
	var url string
	if req.URL != nil {
		url = strings.TrimSpace(*req.URL)
		if err := e.cfg.checkURL(url); err != nil {
			return model.Webhook{}, err
		}
		if err := e.cfg.checkDestination(ctx, url); err != nil {
			return model.Webhook{}, err
		}
	}
	var events []string
	if req.Events != nil {
		var err error
		if events, err = checkEvents(req.Events); err != nil {
			return model.Webhook{}, err
		}
	}
	if req.Description != nil {
		if err := checkDescription(*req.Description); err != nil {
			return model.Webhook{}, err
		}
	}
	var newFilter *model.FilterConfig
	if req.Filter.Set && !req.Filter.Null {
		newFilter = &req.Filter.Value
	}
	var newTemplate *model.WebhookTemplate
	if req.Template.Set && !req.Template.Null {
		newTemplate = &req.Template.Value
	}
	filter, storedFilter, tmpl, err := e.cfg.compileParts(newFilter, newTemplate)
	if err != nil {
		return model.Webhook{}, err
	}
	now := e.cfg.Now().UTC().Truncate(time.Millisecond)
	e.mu.Lock()
	h, ok := e.findLocked(sc, id)
	if !ok {
		e.mu.Unlock()
		return model.Webhook{}, &requestError{status: http.StatusNotFound, msg: "webhook " + id + " not found"}
	}
	r := &h.rec
	if req.URL != nil {
		r.URL = url
	}
	if events != nil {
		r.Events = events
	}
	if req.Description != nil {
		r.Description = *req.Description
	}
	if req.Filter.Set {
		r.Filter, h.filter = storedFilter, filter
	}
	if req.Template.Set {
		r.Template, h.template = newTemplate, tmpl
	}
	if req.Enabled != nil {
		if *req.Enabled && !r.Enabled {
			r.ConsecutiveFailures = 0
		}
		r.Enabled = *req.Enabled
	}
	r.UpdatedAt = &now
	rec := *r
	view := h.view(e.wire.fullViews, e.wire.fullViews)
	e.mu.Unlock()
	if err := e.saveHook(rec); err != nil {
		return model.Webhook{}, fmt.Errorf("update webhook: %w", err)
	}
	return view, nil
}

// test sends a sample event to the webhook's URL and reports whether it
// was delivered (errText).
func (e *Engine) test(ctx context.Context, sc scope, id string) (model.TestWebhookResponse, error) {
	e.mu.Lock()
	h, ok := e.findLocked(sc, id)
	var url, eventType string
	var secrets []string
	var tmpl *compiledTemplate
	if ok {
		url, secrets, eventType, tmpl = h.rec.URL, h.rec.validSecrets(e.cfg.Now()), h.rec.Events[0], h.template
	}
	e.mu.Unlock()
	if !ok {
		return model.TestWebhookResponse{}, &requestError{status: http.StatusNotFound, msg: "webhook " + id + " not found"}
	}
	now := e.cfg.Now()
	view, err := newEventView(sampleIncoming(eventType, now), newID("evt_"), now, e.cfg.dataShape(), nil)
	if err != nil {
		return model.TestWebhookResponse{}, fmt.Errorf("build test event: %w", err)
	}
	body, err := tmpl.render(view)
	if err != nil {
		return model.TestWebhookResponse{}, fmt.Errorf("render test event: %w", err)
	}
	res := e.send(ctx, url, secrets, eventType, newID("dlv_"), body, tmpl.contentType)
	// The answer says whether the endpoint answered and with which status,
	// never its body nor why there was no answer (errText); the response
	// time only when it answered, as a timeout would show in it.
	out := model.TestWebhookResponse{Success: res.ok(), StatusCode: res.status, Error: res.errText()}
	if res.answered() {
		out.ResponseTime = res.elapsed.Milliseconds()
	}
	if res.err != nil {
		e.log.Debug("webhook test failed", "webhook", id, "error", res.err)
	}
	if json.Valid(body) {
		out.PayloadSent = body
	} else if quoted, err := json.Marshal(string(body)); err == nil {
		out.PayloadSent = quoted
	}
	return out, nil
}
