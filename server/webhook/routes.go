package webhook

import (
	"errors"
	"net/http"
	"time"

	"sandview/model"
	"sandview/server/httpapi"
)

// Register mounts every global and inbox webhook route on mux, each wrapped
// in guard (the API's access check: an inbox it marks hidden,
// httpapi.InboxHidden, is answered as a nonexistent one). With the webhook
// system off every route answers 404. Changes go into the audit trail
// (httpapi.Audit).
func (e *Engine) Register(mux *http.ServeMux, guard func(http.Handler) http.Handler) {
	rt := routes{e}
	if guard == nil {
		guard = func(h http.Handler) http.Handler { return h }
	}
	handle := func(pattern string, inbox bool, fn func(http.ResponseWriter, *http.Request, scope)) {
		mux.Handle(pattern, guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !e.cfg.Enabled {
				httpapi.WriteError(w, http.StatusNotFound, "webhooks are disabled on this server (SVC_WEBHOOK_ENABLED=false)")
				return
			}
			if err := e.Reload(r.Context()); err != nil {
				e.log.Error("reloading webhooks failed", "error", err)
				httpapi.WriteError(w, http.StatusServiceUnavailable, "the webhook store does not answer, try again later")
				return
			}
			sc := scope{}
			if inbox {
				hash, address, ok := rt.lookupInbox(r.PathValue("email"))
				ok = ok && !httpapi.InboxHidden(r) // as nonexistent to the caller
				if !ok && r.Method == http.MethodDelete && e.wire.idempotentDelete {
					w.WriteHeader(http.StatusNoContent)
					return
				}
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
		handle("POST "+p, in, rt.handleCreate)
		handle("GET "+p, in, rt.handleList)
		handle("GET "+p+"/{id}", in, rt.handleGet)
		handle("PATCH "+p+"/{id}", in, rt.handleUpdate)
		handle("DELETE "+p+"/{id}", in, rt.handleDelete)
		handle("POST "+p+"/{id}/test", in, rt.handleTest)
		handle("POST "+p+"/{id}/rotate-secret", in, rt.handleRotate)
	}
	handle("GET /api/webhooks/templates", false, rt.handleTemplates)
	handle("GET /api/webhooks/metrics", false, rt.handleMetrics)
}

// routes serves the webhook routes of an engine.
type routes struct{ *Engine }

// audit writes a change of webhook id in scope sc to the audit trail.
func (e routes) audit(r *http.Request, action, id string, sc scope) {
	httpapi.Audit(e.log, r, "webhook", "action", action, "id", id, "inbox", sc.inboxEmail)
}

func (e routes) lookupInbox(address string) (hash, canonical string, ok bool) {
	if e.inboxes == nil || address == "" {
		return "", "", false
	}
	hash, canonical, ok = e.inboxes.Lookup(address)
	if ok && hash == "" {
		return "", "", false
	}
	return hash, canonical, ok
}

func (e routes) handleCreate(w http.ResponseWriter, r *http.Request, sc scope) {
	req, ok := decodeCreate(w, r)
	if !ok {
		return
	}
	wh, err := e.create(r.Context(), sc, req)
	if err != nil {
		writeRequestError(w, err)
		return
	}
	e.audit(r, "create", wh.ID, sc)
	httpapi.WriteJSON(w, http.StatusCreated, wh)
}

func (e routes) handleList(w http.ResponseWriter, _ *http.Request, sc scope) {
	e.mu.Lock()
	hooks := e.hooksLocked(sc.matches)
	list := model.WebhookList{Webhooks: make([]model.Webhook, len(hooks)), Total: len(hooks)}
	for i, h := range hooks {
		list.Webhooks[i] = h.view(false, false)
	}
	e.mu.Unlock()
	httpapi.WriteJSON(w, http.StatusOK, list)
}

func (e routes) handleGet(w http.ResponseWriter, r *http.Request, sc scope) {
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

func (e routes) handleUpdate(w http.ResponseWriter, r *http.Request, sc scope) {
	req, ok := decodeUpdate(w, r)
	if !ok {
		return
	}
	wh, err := e.update(r.Context(), sc, r.PathValue("id"), req)
	if err != nil {
		writeRequestError(w, err)
		return
	}
	e.audit(r, "update", wh.ID, sc)
	httpapi.WriteJSON(w, http.StatusOK, wh)
}

func (e routes) handleDelete(w http.ResponseWriter, r *http.Request, sc scope) {
	id := r.PathValue("id")
	e.mu.Lock()
	_, ok := e.findLocked(sc, id)
	if ok {
		delete(e.hooks, id)
	}
	e.mu.Unlock()
	if !ok && e.wire.idempotentDelete {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !ok {
		writeNotFound(w, id)
		return
	}
	e.audit(r, "delete", id, sc)
	if err := e.q.store.DeleteWebhook(e.ctx, id); err != nil {
		e.log.Error("delete webhook", "webhook", id, "error", err)
		httpapi.WriteError(w, http.StatusInternalServerError, "the webhook was removed but could not be deleted from disk")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (e routes) handleTest(w http.ResponseWriter, r *http.Request, sc scope) {
	res, err := e.test(r.Context(), sc, r.PathValue("id"))
	if err != nil {
		writeRequestError(w, err)
		return
	}
	httpapi.WriteJSON(w, e.wire.actionStatus, res)
}

func (e routes) handleRotate(w http.ResponseWriter, r *http.Request, sc scope) {
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
	e.audit(r, "rotate-secret", id, sc)
	if err := e.saveHook(rec); err != nil {
		e.log.Error("save rotated secret", "webhook", id, "error", err)
		httpapi.WriteError(w, http.StatusInternalServerError, "the new secret could not be saved")
		return
	}
	httpapi.WriteJSON(w, e.wire.actionStatus, model.RotateSecretResponse{ID: id, Secret: rec.Secret, PreviousSecretValidUntil: rec.PreviousSecretValidUntil})
}

func (e routes) handleTemplates(w http.ResponseWriter, _ *http.Request, _ scope) {
	httpapi.WriteJSON(w, http.StatusOK, model.WebhookTemplates{Templates: templateLabels[:]})
}

func (e routes) handleMetrics(w http.ResponseWriter, _ *http.Request, _ scope) {
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
