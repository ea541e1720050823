package server

import (
	"context"
	"net/http"
	"time"

	"sandview/server/httpapi"
)

// readyTimeout bounds the store check of /readyz.
const readyTimeout = 2 * time.Second

// probeStatus is the body of /healthz and /readyz.
type probeStatus struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// probes serves the load balancer's checks ahead of the API, without an
// API key: GET /healthz answers 200 while the process serves; GET /readyz
// answers 200 when the store answers too, else 503.
func (s *Server) probes(api http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		httpapi.WriteJSON(w, http.StatusOK, probeStatus{Status: "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if s.shared != nil {
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			defer cancel()
			if err := s.shared.Ping(ctx); err != nil {
				s.log.Warn("readiness check: the store does not answer", "error", err)
				httpapi.WriteJSON(w, http.StatusServiceUnavailable, probeStatus{Status: "unavailable", Error: "the store does not answer"})
				return
			}
		}
		httpapi.WriteJSON(w, http.StatusOK, probeStatus{Status: "ready"})
	})
	mux.Handle("/", api)
	return mux
}
