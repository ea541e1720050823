package server

import (
	"errors"
	"fmt"
	"time"

	"sandview/server/core"
	"sandview/server/httpapi"
	"sandview/server/smtpd"
	"sandview/server/webhook"
)

// Defaults of Config's own fields; the packages' settings have theirs
// (core, smtpd, httpapi, webhook).
const (
	DefaultHTTPAddr = "127.0.0.1:8025"
	DefaultSMTPAddr = "127.0.0.1:1025"
)

// Config configures a Server: the listeners, the store and the wire
// profile, and the settings of each part, which own their defaults and
// checks: the core's (embedded: API key, domains, encryption, lifetimes,
// storage bounds, checks, chaos, clock and logger), the SMTP transport's,
// the HTTP API's and the webhook engine's. A zero field means its
// default; the API key is required, except with StoreURL.
type Config struct {
	// HTTPAddr and SMTPAddr are listen addresses; port 0 picks a free port.
	HTTPAddr, SMTPAddr string
	// DataDir persists everything (bbolt store and signing key) when set;
	// "" keeps everything in memory.
	DataDir string
	// StoreURL keeps everything in PostgreSQL
	// (postgres://USER[:PASSWORD]@HOST:PORT/DB), shared by any number of
	// replicas; it excludes DataDir. Without an APIKey the store's key is
	// used (created on first start); a different one is an error.
	StoreURL string
	// StoreLookupTimeout bounds how long a mail whose commit's answer
	// PostgreSQL lost waits for the lookup of that commit; past it the mail
	// is answered 451 and kept in doubt until its retry (0: a minute).
	StoreLookupTimeout time.Duration
	// Compat is the wire profile (CompatContract, the default, or
	// CompatReference); see Compat.
	Compat Compat
	// CatchAll, when set, is the address of the catch-all inbox: SMTP
	// mail for any recipient, in any domain, that matches no inbox is
	// stored there instead of being refused. It must be in a served
	// domain; the server creates it (plain, MaxTTL) when it does not exist
	// and keeps it alive while it runs (see Server.SetCatchAll).
	CatchAll string
	// Welcome says what the page at / tells a browser, given the HTTP and
	// SMTP listeners' addresses; it is asked per request, so it may name
	// what starts after the server (the SSH box). Unset: the listeners'
	// own addresses, no version, SSH off.
	Welcome func(httpAddr, smtpAddr string) httpapi.Welcome

	// Options are the core's settings; Start opens the store and sets
	// Store.
	core.Options
	// SMTP are the SMTP transport's settings.
	SMTP smtpd.Settings
	// HTTP are the HTTP API's settings; Start sets Reference and
	// Persistent from Compat and DataDir.
	HTTP httpapi.Settings
	// Webhooks configures the webhook engine; nil means webhook.DefaultConfig().
	// Its store and Logger are taken from this Config.
	Webhooks *webhook.Config
}

// withDefaults returns a copy of cfg with every part's defaults applied
// and checked.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.APIKey == "" && cfg.StoreURL == "" {
		return cfg, errors.New("config: an API key is required")
	}
	if cfg.HTTPAddr == "" {
		cfg.HTTPAddr = DefaultHTTPAddr
	}
	if cfg.SMTPAddr == "" {
		cfg.SMTPAddr = DefaultSMTPAddr
	}
	if err := cfg.applyCompat(); err != nil {
		return cfg, err
	}
	cfg.HTTP.Persistent = cfg.DataDir != ""
	var err error
	if cfg.Options, err = cfg.Options.WithDefaults(); err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if cfg.SMTP, err = cfg.SMTP.WithDefaults(); err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if cfg.HTTP, err = cfg.HTTP.WithDefaults(); err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}
