package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"sandview/model"
	"sandview/server/access"
	"sandview/server/chaos"
	"sandview/server/core"
	"sandview/server/store"
)

// chaosRoutes are the handlers of the chaos routes and the metrics: the
// API's, on a type of their own so that the API type keeps its few roles.
type chaosRoutes struct{ *API }

// The chaos routes (chaos.md, section 2): GET, POST and DELETE
// /api/inboxes/{email}/chaos. Checks in the spec's order: the switch
// (403), the body (400), the inbox (404); a principal reads the chaos of
// the inboxes it sees and changes that of its own (access.ChangeChaos),
// every change in the audit trail.

// chaosDisabled is the 403 message while the switch is off.
const chaosDisabled = "Chaos engineering features are disabled. Set VSB_CHAOS_ENABLED=true to enable."

func (a chaosRoutes) registerChaos(api *http.ServeMux) {
	api.HandleFunc("GET /api/inboxes/{email}/chaos", a.handleGetChaos)
	api.HandleFunc("POST /api/inboxes/{email}/chaos", a.handleSetChaos)
	api.HandleFunc("DELETE /api/inboxes/{email}/chaos", a.handleDeleteChaos)
	api.HandleFunc("GET /api/metrics", a.handleMetrics)
}

// handleMetrics serves GET /api/metrics: this server's chaos counters
// since start (chaos.md, section 5), present whether chaos is on or off.
func (a chaosRoutes) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if !a.allowed(w, r, access.ReadService) {
		return
	}
	WriteJSON(w, http.StatusOK, struct {
		Chaos core.ChaosMetrics `json:"chaos"`
	}{a.core.Chaos().Metrics()})
}

func (a chaosRoutes) handleGetChaos(w http.ResponseWriter, r *http.Request) {
	if !a.chaosOn(w) {
		return
	}
	in, ok := a.chaosInbox(w, r, access.ReadChaos)
	if !ok {
		return
	}
	cfg, err := a.core.Chaos().Config(r.Context(), in.Hash)
	if err != nil {
		a.log.Error("reading a chaos config failed", "error", err)
		WriteError(w, http.StatusInternalServerError, "reading the chaos config failed")
		return
	}
	WriteJSON(w, http.StatusOK, cfg)
}

func (a chaosRoutes) handleSetChaos(w http.ResponseWriter, r *http.Request) {
	if !a.chaosOn(w) {
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		WriteError(w, http.StatusBadRequest, "reading the request body failed: %v", err)
		return
	}
	cfg, problems := chaos.Parse(data, "")
	if problems != nil {
		writeProblems(w, problems)
		return
	}
	in, ok := a.chaosInbox(w, r, access.ChangeChaos)
	if !ok {
		return
	}
	if !a.storeChaos(w, r, in, cfg) {
		return
	}
	WriteJSON(w, http.StatusOK, cfg)
}

func (a chaosRoutes) handleDeleteChaos(w http.ResponseWriter, r *http.Request) {
	if !a.chaosOn(w) {
		return
	}
	in, ok := a.chaosInbox(w, r, access.ChangeChaos)
	if !ok {
		return
	}
	if a.storeChaos(w, r, in, model.ChaosConfig{}) {
		w.WriteHeader(http.StatusNoContent)
	}
}

// chaosOn answers 403 while the switch is off.
func (a chaosRoutes) chaosOn(w http.ResponseWriter) bool {
	if !a.opts.Chaos {
		WriteError(w, http.StatusForbidden, "%s", chaosDisabled)
	}
	return a.opts.Chaos
}

// chaosInbox finds the route's inbox for act, else answers 404 (or 403).
func (a chaosRoutes) chaosInbox(w http.ResponseWriter, r *http.Request, act access.Action) (*core.Inbox, bool) {
	in, answered := a.inboxFor(w, r, act, pathAddress(r))
	if answered {
		return nil, false
	}
	if in == nil {
		WriteError(w, http.StatusNotFound, "Inbox not found: %s", r.PathValue("email"))
		return nil, false
	}
	return in, true
}

// storeChaos keeps cfg as in's config and audits the change; on failure
// it answers.
func (a chaosRoutes) storeChaos(w http.ResponseWriter, r *http.Request, in *core.Inbox, cfg model.ChaosConfig) bool {
	err := a.core.Chaos().Set(r.Context(), in.Hash, cfg)
	switch {
	case errors.Is(err, store.ErrNotFound):
		WriteError(w, http.StatusNotFound, "Inbox not found: %s", r.PathValue("email"))
		return false
	case err != nil:
		a.log.Error("setting a chaos config failed", "error", err)
		WriteError(w, http.StatusInternalServerError, "setting the chaos config failed")
		return false
	}
	Audit(a.log, r, "chaos", "inbox", in.Address, "config", chaosSummary(cfg))
	return true
}

// chaosSummary is a config in one line for the audit trail.
func chaosSummary(cfg model.ChaosConfig) string {
	data, _ := json.Marshal(cfg)
	return string(data)
}

// writeProblems answers 400 with validation messages, always an array
// (model.Messages writes one as a string).
func writeProblems(w http.ResponseWriter, problems []string) {
	WriteJSON(w, http.StatusBadRequest, struct {
		Message    []string `json:"message"`
		Error      string   `json:"error"`
		StatusCode int      `json:"statusCode"`
	}{problems, http.StatusText(http.StatusBadRequest), http.StatusBadRequest})
}
