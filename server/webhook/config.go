package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"sandview/client/netguard"
	"sandview/server/store"
)

// Defaults of Config, from the contract's limits and server settings.
const (
	DefaultMaxGlobal                  = 100
	DefaultMaxPerInbox                = 50
	DefaultTimeout                    = 10 * time.Second
	DefaultMaxAttempts                = 5
	DefaultMaxQueuedRetriesPerWebhook = 100
	DefaultMaxHeaders                 = 50
	DefaultMaxHeaderValueLen          = 1000
)

// Fixed limits of the contract.
const (
	maxEvents              = 10
	maxRules               = 10
	maxRuleValueLen        = 1000
	maxDescriptionLen      = 500
	maxURLLen              = 2048
	maxCustomBodyLen       = 10000
	maxConcurrentPerHook   = 10
	maxConcurrentOverall   = 100
	failuresBeforeDisable  = 5
	rotationGrace          = time.Hour
	filterBodyLimit        = 5 * 1024
	incomingQueueSize      = 4096
	rememberedEmails       = 10000
	defaultContentType     = "application/json"
	drainedResponseBodyMax = 64 << 10
)

// DefaultRetrySchedule is the delay before each attempt: immediate, 30 s,
// 5 min, 30 min, 4 h.
func DefaultRetrySchedule() []time.Duration {
	return []time.Duration{0, 30 * time.Second, 5 * time.Minute, 30 * time.Minute, 4 * time.Hour}
}

// Config configures an Engine. New treats a zero numeric field, a nil
// schedule, a zero TimeScale and nil funcs as their defaults; Enabled and the
// boolean switches are taken as they are (DefaultConfig sets Enabled). The
// package reads no environment: the command line fills Config from its
// flags and the SVC_WEBHOOK_* variables each field names.
type Config struct {
	// Enabled turns the webhook system on (SVC_WEBHOOK_ENABLED, default true).
	Enabled bool
	// MaxGlobal and MaxPerInbox bound the number of webhooks
	// (SVC_WEBHOOK_MAX_GLOBAL 100, SVC_WEBHOOK_MAX_INBOX 50).
	MaxGlobal, MaxPerInbox int
	// Timeout bounds one attempt (SVC_WEBHOOK_TIMEOUT, milliseconds, 10000).
	Timeout time.Duration
	// MaxAttempts is the number of attempts of a delivery
	// (SVC_WEBHOOK_MAX_RETRIES, 5).
	MaxAttempts int
	// MaxQueuedRetriesPerWebhook bounds the retries waiting per webhook
	// (SVC_WEBHOOK_MAX_RETRIES_PER_WEBHOOK, 100).
	MaxQueuedRetriesPerWebhook int
	// AllowHTTP accepts http:// webhook URLs (SVC_WEBHOOK_ALLOW_HTTP).
	AllowHTTP bool
	// AllowLoopbackHTTP accepts http:// URLs whose host is a loopback IP
	// or "localhost", and deliveries to loopback addresses (sandview
	// --local).
	AllowLoopbackHTTP bool
	// AllowPrivate accepts webhook URLs whose host is or resolves to a
	// loopback, private, link-local, unspecified, shared or cloud metadata
	// address (SVC_WEBHOOK_ALLOW_PRIVATE; see client/netguard). Without
	// it such URLs are refused at create and update, and connections to
	// such addresses are refused at connect time.
	AllowPrivate bool
	// Resolver resolves URL hosts, for the create/update check and for
	// the engine's own HTTP client (nil: the system's resolver).
	Resolver netguard.Resolver
	// RequireAuthDefault is the default of a filter's requireAuth
	// (SVC_WEBHOOK_REQUIRE_AUTH_DEFAULT).
	RequireAuthDefault bool
	// ReferenceWire answers and delivers like the reference deployment
	// instead of as the interface is written (see wire); the server sets it
	// from its Config.Compat.
	ReferenceWire bool
	// MaxHeaders and MaxHeaderValueLen bound the headers of an
	// email.received payload (SVC_WEBHOOK_MAX_HEADERS 50,
	// SVC_WEBHOOK_MAX_HEADER_VALUE_LEN 1000).
	MaxHeaders, MaxHeaderValueLen int
	// RetrySchedule is the delay before each attempt (DefaultRetrySchedule);
	// attempts beyond its length use its last entry.
	RetrySchedule []time.Duration
	// TimeScale multiplies RetrySchedule (1; tests use e.g. 0.001).
	TimeScale float64
	// Store keeps the webhooks and their delivery queue: the server's
	// store (durable with a data directory or PostgreSQL, which the
	// engines of several replicas share; see queue.go). Required.
	Store store.Webhooks
	// HTTPClient sends deliveries; nil means a client of the engine's own
	// that does not follow redirects and whose connections obey the
	// destination rule (destination).
	HTTPClient *http.Client
	// Now is the clock (time.Now).
	Now func() time.Time
	// Logger receives delivery problems; secrets are never logged.
	Logger *slog.Logger
}

// DefaultConfig is the configuration of the contract's defaults.
func DefaultConfig() Config {
	return Config{
		Enabled:                    true,
		MaxGlobal:                  DefaultMaxGlobal,
		MaxPerInbox:                DefaultMaxPerInbox,
		Timeout:                    DefaultTimeout,
		MaxAttempts:                DefaultMaxAttempts,
		MaxQueuedRetriesPerWebhook: DefaultMaxQueuedRetriesPerWebhook,
		MaxHeaders:                 DefaultMaxHeaders,
		MaxHeaderValueLen:          DefaultMaxHeaderValueLen,
		RetrySchedule:              DefaultRetrySchedule(),
		TimeScale:                  1,
	}
}

// withDefaults fills the zero fields of cfg.
func (cfg Config) withDefaults() (Config, error) {
	def := DefaultConfig()
	if cfg.MaxGlobal < 0 || cfg.MaxPerInbox < 0 || cfg.MaxAttempts < 0 || cfg.MaxQueuedRetriesPerWebhook < 0 ||
		cfg.MaxHeaders < 0 || cfg.MaxHeaderValueLen < 0 || cfg.Timeout < 0 || cfg.TimeScale < 0 {
		return Config{}, fmt.Errorf("webhook config: limits, timeout and time scale must not be negative")
	}
	if cfg.Store == nil {
		return Config{}, errors.New("webhook config: no store to keep the webhooks in")
	}
	if cfg.MaxGlobal == 0 {
		cfg.MaxGlobal = def.MaxGlobal
	}
	if cfg.MaxPerInbox == 0 {
		cfg.MaxPerInbox = def.MaxPerInbox
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = def.Timeout
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = def.MaxAttempts
	}
	if cfg.MaxQueuedRetriesPerWebhook == 0 {
		cfg.MaxQueuedRetriesPerWebhook = def.MaxQueuedRetriesPerWebhook
	}
	if cfg.MaxHeaders == 0 {
		cfg.MaxHeaders = def.MaxHeaders
	}
	if cfg.MaxHeaderValueLen == 0 {
		cfg.MaxHeaderValueLen = def.MaxHeaderValueLen
	}
	if len(cfg.RetrySchedule) == 0 {
		cfg.RetrySchedule = def.RetrySchedule
	}
	for _, d := range cfg.RetrySchedule {
		if d < 0 {
			return Config{}, fmt.Errorf("webhook config: retry delays must not be negative")
		}
	}
	if cfg.TimeScale == 0 {
		cfg.TimeScale = 1
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.HTTPClient == nil {
		transport := cfg.destination().Transport(cfg.Resolver)
		transport.MaxIdleConnsPerHost = maxConcurrentOverall
		transport.MaxIdleConns = maxConcurrentOverall
		cfg.HTTPClient = &http.Client{
			Transport: transport,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	return cfg, nil
}

// destination is the rule webhook URLs and connections obey.
func (cfg Config) destination() netguard.Rule {
	return netguard.Rule{AllowPrivate: cfg.AllowPrivate, AllowLoopback: cfg.AllowLoopbackHTTP}
}

// destinationLookupTimeout bounds the resolution of a URL's host at
// create and update.
const destinationLookupTimeout = 5 * time.Second

// checkDestination refuses a URL whose host is or resolves to an address
// the destination rule forbids (400 naming the rule).
func (cfg Config) checkDestination(ctx context.Context, rawURL string) error {
	ctx, cancel := context.WithTimeout(ctx, destinationLookupTimeout)
	defer cancel()
	err := cfg.destination().CheckURL(ctx, rawURL, cfg.Resolver)
	if errors.Is(err, netguard.ErrForbidden) {
		return badRequest("url is refused: %v; webhooks may not target loopback, private, link-local, unspecified, shared (CGNAT) or cloud metadata addresses on this server (--private-webhooks (SVC_WEBHOOK_ALLOW_PRIVATE=true) allows them)", err)
	}
	if err != nil {
		return badRequest("url is not a valid URL: %v", err)
	}
	return nil
}

// retryDelay is the scaled delay before attempt number attempt (1-based).
func (cfg Config) retryDelay(attempt int) time.Duration {
	i := attempt - 1
	if i >= len(cfg.RetrySchedule) {
		i = len(cfg.RetrySchedule) - 1
	}
	if i < 0 {
		i = 0
	}
	return time.Duration(float64(cfg.RetrySchedule[i]) * cfg.TimeScale)
}
