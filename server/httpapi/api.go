package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/access"
	"sandview/server/core"
)

// Defaults of Settings.
const DefaultHeartbeatInterval = 30 * time.Second

// Settings are the HTTP API's settings; a zero field means its default
// (see WithDefaults, which New applies). The domains, lifetimes,
// encryption, chaos switch, clock and logger are the core's
// (core.Core.Options).
type Settings struct {
	// Dev enables POST /api/test/emails (SVC_SDK_DEVELOPMENT=true).
	Dev bool
	// Reference answers as the reference deployment where it differs
	// from the contract (the create-inbox body's persistence and
	// spamAnalysis, and the response's persistent); the server sets it
	// from its wire profile.
	Reference bool
	// Persistent tells that inboxes outlive a restart (a data directory);
	// the server sets it.
	Persistent bool
	// HeartbeatInterval is the event stream's keep-alive period (30s).
	HeartbeatInterval time.Duration
}

// WithDefaults returns a copy of set with the zero fields set to their
// defaults, or the first value that is out of range.
func (set Settings) WithDefaults() (Settings, error) {
	if set.HeartbeatInterval < 0 {
		return set, errors.New("durations must be positive")
	}
	if set.HeartbeatInterval == 0 {
		set.HeartbeatInterval = DefaultHeartbeatInterval
	}
	return set, nil
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
	opts     core.Options // the core's
	log      *slog.Logger
	// principals are the keys that act as principals (see guard.go); nil
	// for none: the server's API key is the only key.
	principals *access.Keyring
	// welcome, when set, is what the page at / tells a browser (asked per
	// request); nil: / answers browsers as it answers API clients.
	welcome func() Welcome
}

// New returns the API of c, with the webhook engine's routes, the keys
// of principals (nil: none) and the page at / (nil: none); set's defaults
// are applied (see Settings.WithDefaults).
func New(c *core.Core, webhooks Webhooks, set Settings, principals *access.Keyring, welcome func() Welcome) (*API, error) {
	set, err := set.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("http settings: %w", err)
	}
	opts := c.Options()
	return &API{core: c, webhooks: webhooks, set: set, opts: opts, log: opts.Logger, principals: principals, welcome: welcome}, nil
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
	mux.Handle("/{$}", rootHandler(a.welcome, a.log, guarded))
}

func (a *API) handleCheckKey(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, model.CheckKeyResponse{OK: true})
}

func (a *API) handleServerInfo(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, model.ServerInfo{
		ServerSigPk:      a.core.ServerSigPk(),
		Algs:             crypto.DefaultAlgs(),
		Context:          a.opts.EncryptionContext,
		EncryptionPolicy: a.opts.EncryptionPolicy,
		MaxTTL:           int(a.opts.MaxTTL.Seconds()),
		DefaultTTL:       int(a.opts.DefaultTTL.Seconds()),
		AllowedDomains:   a.opts.Domains,

		WebhookEnabled:            a.webhooks.Enabled(),
		WebhookRequireAuthDefault: a.webhooks.RequireAuthDefault(),
		ChaosEnabled:              a.opts.Chaos,
	})
}
