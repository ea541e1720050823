package httpapi

import (
	"log/slog"
	"net/http"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/access"
	"sandview/server/core"
)

// Settings configures the API; every field is used as given (the
// composition root applies the defaults).
type Settings struct {
	// Dev enables POST /api/test/emails.
	Dev bool
	// Chaos is the chaos switch: off, the chaos routes answer 403.
	Chaos bool
	// Reference answers as the reference deployment where it differs
	// from the contract (the create-inbox body's persistence and
	// spamAnalysis, and the response's persistent).
	Reference bool
	// Persistent tells that inboxes outlive a restart (a data directory).
	Persistent bool
	// Server info.
	EncryptionContext, EncryptionPolicy string
	DefaultTTL, MaxTTL                  time.Duration
	Domains                             []string
	// HeartbeatInterval is the event stream's keep-alive period.
	HeartbeatInterval time.Duration
	// Now is the clock (test emails' Date).
	Now func() time.Time
	// Logger receives operational logs and the audit trail.
	Logger *slog.Logger
	// Principals are the keys that act as principals (see guard.go); nil
	// for none: the server's API key is the only key.
	Principals *access.Keyring
	// Welcome, when set, is what the page at / tells a browser (asked
	// per request); nil: / answers browsers as it answers API clients.
	Welcome func() Welcome
}

// Webhooks is the webhook engine as the API serves it.
type Webhooks interface {
	// Register registers the webhook routes on mux.
	Register(mux *http.ServeMux, guard func(http.Handler) http.Handler)
	Enabled() bool
	RequireAuthDefault() bool
}

// API is the HTTP API of one core (http-interface.md).
type API struct {
	core     *core.Core
	webhooks Webhooks
	set      Settings
	log      *slog.Logger
}

// New returns the API of c, with the webhook engine's routes.
func New(c *core.Core, webhooks Webhooks, set Settings) *API {
	return &API{core: c, webhooks: webhooks, set: set, log: set.Logger}
}

// Register registers the API on mux: the probes, which need no API key
// (see registerProbes), and every other path, which requires X-API-Key:
// the server's key, or a principal's, under the checks of guard.go.
func (a *API) Register(mux *http.ServeMux) {
	a.registerProbes(mux)
	api := http.NewServeMux()
	api.HandleFunc("GET /api/check-key", a.handleCheckKey)
	api.HandleFunc("GET /api/server-info", a.handleServerInfo)
	api.HandleFunc("POST /api/inboxes", a.handleCreateInbox)
	api.HandleFunc("DELETE /api/inboxes", a.handleDeleteAllInboxes)
	api.HandleFunc("DELETE /api/inboxes/{email}", a.handleDeleteInbox)
	emails := emailRoutes{a}
	api.HandleFunc("GET /api/inboxes/{email}/sync", emails.handleSync)
	api.HandleFunc("GET /api/inboxes/{email}/emails", emails.handleListEmails)
	api.HandleFunc("GET /api/inboxes/{email}/emails/{id}", emails.handleGetEmail)
	api.HandleFunc("GET /api/inboxes/{email}/emails/{id}/raw", emails.handleGetRaw)
	api.HandleFunc("PATCH /api/inboxes/{email}/emails/{id}/read", emails.handleMarkRead)
	api.HandleFunc("DELETE /api/inboxes/{email}/emails/{id}", emails.handleDeleteEmail)
	api.HandleFunc("GET /api/events", a.handleEvents)
	chaosRoutes{a}.registerChaos(api)
	if a.set.Dev {
		api.HandleFunc("POST /api/test/emails", a.handleTestEmail)
	}
	a.webhooks.Register(api, a.guardWebhooks)
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, "Cannot %s %s", r.Method, r.URL.Path)
	})
	guarded := a.requireAPIKey(api)
	mux.Handle("/", guarded)
	mux.Handle("/{$}", rootHandler(a.set.Welcome, a.log, guarded))
}

func (a *API) handleCheckKey(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, model.CheckKeyResponse{OK: true})
}

func (a *API) handleServerInfo(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, model.ServerInfo{
		ServerSigPk:      a.core.ServerSigPk(),
		Algs:             crypto.DefaultAlgs(),
		Context:          a.set.EncryptionContext,
		EncryptionPolicy: a.set.EncryptionPolicy,
		MaxTTL:           int(a.set.MaxTTL.Seconds()),
		DefaultTTL:       int(a.set.DefaultTTL.Seconds()),
		AllowedDomains:   a.set.Domains,

		WebhookEnabled:            a.webhooks.Enabled(),
		WebhookRequireAuthDefault: a.webhooks.RequireAuthDefault(),
		ChaosEnabled:              a.set.Chaos,
	})
}
