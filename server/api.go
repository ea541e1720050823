package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/httpapi"
)

// routes builds the HTTP API. Every route requires X-API-Key.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/check-key", s.handleCheckKey)
	mux.HandleFunc("GET /api/server-info", s.handleServerInfo)
	mux.HandleFunc("POST /api/inboxes", s.handleCreateInbox)
	mux.HandleFunc("DELETE /api/inboxes", s.handleDeleteAllInboxes)
	mux.HandleFunc("DELETE /api/inboxes/{email}", s.handleDeleteInbox)
	mux.HandleFunc("GET /api/inboxes/{email}/sync", s.handleSync)
	mux.HandleFunc("GET /api/inboxes/{email}/emails", s.handleListEmails)
	mux.HandleFunc("GET /api/inboxes/{email}/emails/{id}", s.handleGetEmail)
	mux.HandleFunc("GET /api/inboxes/{email}/emails/{id}/raw", s.handleGetRaw)
	mux.HandleFunc("PATCH /api/inboxes/{email}/emails/{id}/read", s.handleMarkRead)
	mux.HandleFunc("DELETE /api/inboxes/{email}/emails/{id}", s.handleDeleteEmail)
	mux.HandleFunc("GET /api/events", s.handleEvents)
	if s.cfg.Dev {
		mux.HandleFunc("POST /api/test/emails", s.handleTestEmail)
	}
	s.webhooks.Register(mux, nil)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteError(w, http.StatusNotFound, "Cannot %s %s", r.Method, r.URL.Path)
	})
	return s.requireAPIKey(mux)
}

// requireAPIKey answers 401 unless X-API-Key matches, compared in constant
// time (over digests, so the key's length does not leak either).
func (s *Server) requireAPIKey(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.cfg.APIKey))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		values := r.Header.Values("X-API-Key")
		if len(values) == 0 || values[0] == "" {
			httpapi.WriteError(w, http.StatusUnauthorized, "missing X-API-Key header")
			return
		}
		got := sha256.Sum256([]byte(values[0]))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			httpapi.WriteError(w, http.StatusUnauthorized, "invalid API key")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) handleCheckKey(w http.ResponseWriter, _ *http.Request) {
	httpapi.WriteJSON(w, http.StatusOK, model.CheckKeyResponse{OK: true})
}

func (s *Server) handleServerInfo(w http.ResponseWriter, _ *http.Request) {
	httpapi.WriteJSON(w, http.StatusOK, model.ServerInfo{
		ServerSigPk:      s.keyB64,
		Algs:             crypto.DefaultAlgs(),
		Context:          s.cfg.EncryptionContext,
		EncryptionPolicy: s.cfg.EncryptionPolicy,
		MaxTTL:           int(s.cfg.MaxTTL.Seconds()),
		DefaultTTL:       int(s.cfg.DefaultTTL.Seconds()),
		AllowedDomains:   s.cfg.Domains,

		WebhookEnabled:            s.webhooks.Enabled(),
		WebhookRequireAuthDefault: s.webhooks.RequireAuthDefault(),
	})
}
