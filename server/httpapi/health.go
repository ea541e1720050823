package httpapi

import (
	"context"
	"net/http"
	"time"
)

// readyTimeout bounds the store check of /readyz.
const readyTimeout = 2 * time.Second

// probeStatus is the body of /healthz and /readyz.
type probeStatus struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// registerProbes registers the load balancer's checks, which need no API
// key: GET /healthz answers 200 while the process serves; GET /readyz
// answers 200 when the store answers too, else 503.
func (a *API) registerProbes(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusOK, probeStatus{Status: "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := a.core.Ping(ctx); err != nil {
			a.log.Warn("readiness check: the store does not answer", "error", err)
			WriteJSON(w, http.StatusServiceUnavailable, probeStatus{Status: "unavailable", Error: "the store does not answer"})
			return
		}
		WriteJSON(w, http.StatusOK, probeStatus{Status: "ready"})
	})
}
