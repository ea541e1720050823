package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"sandview/model"
	"sandview/server/httpapi"
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

// Register mounts every global and inbox webhook route on mux, each wrapped
// in guard (the server's API-key check). With the webhook system off every
// route answers 404.
func (e *Engine) Register(mux *http.ServeMux, guard func(http.Handler) http.Handler) {
	if guard == nil {
		guard = func(h http.Handler) http.Handler { return h }
	}
	handle := func(pattern string, inbox bool, fn func(http.ResponseWriter, *http.Request, scope)) {
		mux.Handle(pattern, guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !e.cfg.Enabled {
				httpapi.WriteError(w, http.StatusNotFound, "webhooks are disabled on this server (SVC_WEBHOOK_ENABLED=false)")
				return
			}
			sc := scope{}
			if inbox {
				hash, address, ok := e.lookupInbox(r.PathValue("email"))
				if !ok {
					httpapi.WriteError(w, http.StatusNotFound, "inbox %s not found", r.PathValue("email"))
					return
				}
				sc = scope{inboxEmail: address, inboxHash: hash}
			}
			fn(w, r, sc)
		})))
	}
	for _, prefix := range []struct {
		path  string
		inbox bool
	}{{"/api/webhooks", false}, {"/api/inboxes/{email}/webhooks", true}} {
		p, in := prefix.path, prefix.inbox
		handle("POST "+p, in, e.handleCreate)
		handle("GET "+p, in, e.handleList)
		handle("GET "+p+"/{id}", in, e.handleGet)
		handle("PATCH "+p+"/{id}", in, e.handleUpdate)
		handle("DELETE "+p+"/{id}", in, e.handleDelete)
		handle("POST "+p+"/{id}/test", in, e.handleTest)
		handle("POST "+p+"/{id}/rotate-secret", in, e.handleRotate)
	}
	handle("GET /api/webhooks/templates", false, e.handleTemplates)
	handle("GET /api/webhooks/metrics", false, e.handleMetrics)
}

func (e *Engine) lookupInbox(address string) (hash, canonical string, ok bool) {
	if e.inboxes == nil || address == "" {
		return "", "", false
	}
	hash, canonical, ok = e.inboxes.Lookup(address)
	if ok && hash == "" {
		return "", "", false
	}
	return hash, canonical, ok
}

func (e *Engine) handleCreate(w http.ResponseWriter, r *http.Request, sc scope) {
	var req model.CreateWebhookRequest
	if !httpapi.DecodeBody(w, r, &req) {
		return
	}
	wh, err := e.create(sc, req)
	if err != nil {
		writeRequestError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, wh)
}

func (e *Engine) handleList(w http.ResponseWriter, _ *http.Request, sc scope) {
	e.mu.Lock()
	hooks := e.hooksLocked(sc.matches)
	list := model.WebhookList{Webhooks: make([]model.Webhook, len(hooks)), Total: len(hooks)}
	for i, h := range hooks {
		list.Webhooks[i] = h.view(false, false)
	}
	e.mu.Unlock()
	httpapi.WriteJSON(w, http.StatusOK, list)
}

func (e *Engine) handleGet(w http.ResponseWriter, r *http.Request, sc scope) {
	e.mu.Lock()
	h, ok := e.findLocked(sc, r.PathValue("id"))
	var wh model.Webhook
	if ok {
		wh = h.view(true, true)
	}
	e.mu.Unlock()
	if !ok {
		writeNotFound(w, r.PathValue("id"))
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, wh)
}

func (e *Engine) handleUpdate(w http.ResponseWriter, r *http.Request, sc scope) {
	var req model.UpdateWebhookRequest
	if !httpapi.DecodeBody(w, r, &req) {
		return
	}
	wh, err := e.update(sc, r.PathValue("id"), req)
	if err != nil {
		writeRequestError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, wh)
}

func (e *Engine) handleDelete(w http.ResponseWriter, r *http.Request, sc scope) {
	id := r.PathValue("id")
	e.mu.Lock()
	_, ok := e.findLocked(sc, id)
	if ok {
		e.removeLocked(id)
	}
	e.mu.Unlock()
	if !ok {
		writeNotFound(w, id)
		return
	}
	if err := e.store.deleteHook(id); err != nil {
		e.log.Error("delete webhook", "webhook", id, "error", err)
		httpapi.WriteError(w, http.StatusInternalServerError, "the webhook was removed but could not be deleted from disk")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (e *Engine) handleTest(w http.ResponseWriter, r *http.Request, sc scope) {
	res, err := e.test(r.Context(), sc, r.PathValue("id"))
	if err != nil {
		writeRequestError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, res)
}

func (e *Engine) handleRotate(w http.ResponseWriter, r *http.Request, sc scope) {
	id := r.PathValue("id")
	now := e.cfg.Now().UTC().Truncate(time.Millisecond)
	e.mu.Lock()
	h, ok := e.findLocked(sc, id)
	var rec record
	if ok {
		h.rec.PreviousSecret = h.rec.Secret
		h.rec.PreviousSecretValidUntil = now.Add(rotationGrace)
		h.rec.Secret = newSecret()
		h.rec.UpdatedAt = &now
		rec = h.rec
	}
	e.mu.Unlock()
	if !ok {
		writeNotFound(w, id)
		return
	}
	if err := e.store.putHooks(rec); err != nil {
		e.log.Error("save rotated secret", "webhook", id, "error", err)
		httpapi.WriteError(w, http.StatusInternalServerError, "the new secret could not be saved")
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, model.RotateSecretResponse{ID: id, Secret: rec.Secret, PreviousSecretValidUntil: rec.PreviousSecretValidUntil})
}

func (e *Engine) handleTemplates(w http.ResponseWriter, _ *http.Request, _ scope) {
	httpapi.WriteJSON(w, http.StatusOK, model.WebhookTemplates{Templates: templateLabels[:]})
}

func (e *Engine) handleMetrics(w http.ResponseWriter, _ *http.Request, _ scope) {
	var m model.WebhookMetrics
	e.mu.Lock()
	for _, h := range e.hooks {
		if h.rec.Scope == model.ScopeGlobal {
			m.Webhooks.Global++
		} else {
			m.Webhooks.Inbox++
		}
		if h.rec.Enabled {
			m.Webhooks.Enabled++
		}
		m.Deliveries.Total += h.rec.Stats.TotalDeliveries
		m.Deliveries.Successful += h.rec.Stats.SuccessfulDeliveries
		m.Deliveries.Failed += h.rec.Stats.FailedDeliveries
	}
	e.mu.Unlock()
	m.Webhooks.Total = m.Webhooks.Global + m.Webhooks.Inbox
	httpapi.WriteJSON(w, http.StatusOK, m)
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
func (e *Engine) create(sc scope, req model.CreateWebhookRequest) (model.Webhook, error) {
	url := strings.TrimSpace(req.URL)
	if err := e.cfg.checkURL(url); err != nil {
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
		Seq: e.nextSeq(),
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
	view := h.view(true, false)
	e.mu.Unlock()
	if err := e.store.putHooks(rec); err != nil {
		e.mu.Lock()
		delete(e.hooks, rec.ID)
		e.mu.Unlock()
		return model.Webhook{}, fmt.Errorf("create webhook: %w", err)
	}
	return view, nil
}

// update applies a PATCH.
func (e *Engine) update(sc scope, id string, req model.UpdateWebhookRequest) (model.Webhook, error) {
	var url string
	if req.URL != nil {
		url = strings.TrimSpace(*req.URL)
		if err := e.cfg.checkURL(url); err != nil {
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
	view := h.view(false, false)
	e.mu.Unlock()
	if err := e.store.putHooks(rec); err != nil {
		return model.Webhook{}, fmt.Errorf("update webhook: %w", err)
	}
	return view, nil
}

// test sends a sample event to the webhook's URL and reports the answer.
func (e *Engine) test(ctx context.Context, sc scope, id string) (model.TestWebhookResponse, error) {
	e.mu.Lock()
	h, ok := e.findLocked(sc, id)
	var url, secret, eventType string
	var tmpl *compiledTemplate
	if ok {
		url, secret, eventType, tmpl = h.rec.URL, h.rec.Secret, h.rec.Events[0], h.template
	}
	e.mu.Unlock()
	if !ok {
		return model.TestWebhookResponse{}, &requestError{status: http.StatusNotFound, msg: "webhook " + id + " not found"}
	}
	now := e.cfg.Now()
	view, err := newEventView(sampleIncoming(eventType, now), newID("evt_"), now, e.cfg.MaxHeaders, e.cfg.MaxHeaderValueLen, nil)
	if err != nil {
		return model.TestWebhookResponse{}, fmt.Errorf("build test event: %w", err)
	}
	body, err := tmpl.render(view)
	if err != nil {
		return model.TestWebhookResponse{}, fmt.Errorf("render test event: %w", err)
	}
	res := e.send(ctx, url, secret, eventType, newID("dlv_"), body, tmpl.contentType)
	out := model.TestWebhookResponse{
		Success:      res.ok(),
		StatusCode:   res.status,
		ResponseTime: res.elapsed.Milliseconds(),
		ResponseBody: res.body,
		Error:        res.errText(),
	}
	if json.Valid(body) {
		out.PayloadSent = body
	} else if quoted, err := json.Marshal(string(body)); err == nil {
		out.PayloadSent = quoted
	}
	return out, nil
}

func writeNotFound(w http.ResponseWriter, id string) {
	httpapi.WriteError(w, http.StatusNotFound, "webhook %s not found", id)
}

// writeRequestError answers a refused request with its status, anything
// else with 500.
func writeRequestError(w http.ResponseWriter, err error) {
	var re *requestError
	if errors.As(err, &re) {
		httpapi.WriteError(w, re.status, "%s", re.msg)
		return
	}
	httpapi.WriteError(w, http.StatusInternalServerError, "%s", err)
}
