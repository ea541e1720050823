package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/emailauth"
	"sandview/server/httpapi"
	"sandview/server/webhook"
)

// Defaults of Config.
const (
	DefaultHTTPAddr          = "127.0.0.1:8025"
	DefaultSMTPAddr          = "127.0.0.1:1025"
	DefaultTTL               = time.Hour
	DefaultMaxTTL            = 168 * time.Hour
	MinTTL                   = time.Minute
	DefaultMaxMessageBytes   = 10 << 20
	DefaultMaxEmailsPerInbox = 10000
	DefaultMaxStoreBytes     = 1 << 30
	DefaultHeartbeatInterval = 30 * time.Second
	DefaultSweepInterval     = time.Second
	// DefaultAuthBudget bounds the DNS work of one email's authentication
	// checks; DefaultLoopbackAuthBudget applies to mail from a loopback
	// address checked against the system resolver.
	DefaultAuthBudget         = 2 * time.Second
	DefaultLoopbackAuthBudget = 250 * time.Millisecond
	// DefaultSpamdBudget bounds how long spamd may hold a mail back.
	DefaultSpamdBudget = 3 * time.Second
	// SMTP connection limits (see Config.SMTPMaxConns): sized for a 1 GB
	// box with the default message size.
	DefaultSMTPMaxConns      = 200
	DefaultSMTPMaxConnsPerIP = 50
	DefaultSMTPIdleTimeout   = time.Minute
	// DefaultSMTPNoProgressTimeout: see Config.SMTPNoProgressTimeout.
	DefaultSMTPNoProgressTimeout = 15 * time.Second
	DefaultSMTPBufferBytes       = 64 << 20
	// SMTP AUTH lockout (see Config.SMTPAuthMaxFailures).
	DefaultSMTPAuthMaxFailures      = 5
	DefaultSMTPAuthMaxFailuresPerIP = 50
	DefaultSMTPAuthLockout          = 5 * time.Minute
)

// DefaultDomains are the recipient domains served when Config.Domains is
// empty.
func DefaultDomains() []string { return []string{"sandbox.test", "localhost"} }

// Config configures a Server. The zero value of every field but APIKey
// means its default.
type Config struct {
	// HTTPAddr and SMTPAddr are listen addresses; port 0 picks a free port.
	HTTPAddr, SMTPAddr string
	// APIKey is the X-API-Key every request must carry. Required, except
	// with StoreURL: then the store's key is used (created on first start)
	// and a different one is an error.
	APIKey string
	// Domains are the recipient domains inboxes may live in.
	Domains []string
	// EncryptionPolicy is always, enabled (default), disabled or never.
	EncryptionPolicy string
	// EncryptionContext is the payload context string (crypto.DefaultContext;
	// ReferenceEncryptionContext with CompatReference).
	EncryptionContext string
	// DataDir persists everything (bbolt store and signing key) when set;
	// "" keeps everything in memory.
	DataDir string
	// StoreURL keeps everything in PostgreSQL
	// (postgres://USER[:PASSWORD]@HOST:PORT/DB), shared by any number of
	// replicas; it excludes DataDir.
	StoreURL string
	// StoreLookupTimeout bounds how long a mail whose commit's answer
	// PostgreSQL lost waits for the lookup of that commit; past it the mail
	// is answered 451 and kept in doubt until its retry (0: a minute).
	StoreLookupTimeout time.Duration
	// Dev enables POST /api/test/emails (SVC_SDK_DEVELOPMENT=true).
	Dev bool
	// Chaos is the chaos switch (chaos.md, section 1): per-inbox fault
	// injection at SMTP, configured over the API; off, the chaos routes
	// answer 403 and SMTP never evaluates chaos.
	Chaos bool
	// Rand draws the chaos's random numbers in [0, 1) (nil: math/rand/v2);
	// inject one to test chaos's probabilities.
	Rand func() float64
	// Compat is the wire profile (CompatContract, the default, or
	// CompatReference); see Compat.
	Compat Compat
	// CatchAll, when set, is the address of the catch-all inbox: SMTP
	// mail for any recipient, in any domain, that matches no inbox is
	// stored there instead of being refused. It must be in a served
	// domain; the server creates it (plain, MaxTTL) when it does not exist
	// and keeps it alive while it runs (see Server.SetCatchAll).
	CatchAll string
	// Hostname is the name the server gives itself in the SMTP greeting
	// and in the Received header of every stored message (default: the
	// machine's host name).
	Hostname string
	// DefaultTTL and MaxTTL bound inbox lifetimes (1h, 168h); the minimum
	// is always MinTTL.
	DefaultTTL, MaxTTL time.Duration
	// MaxMessageBytes is the SMTP size limit (10 MiB).
	MaxMessageBytes int64
	// SMTPMaxConns and SMTPMaxConnsPerIP cap concurrent SMTP connections,
	// in total and from one client IP (200, 50: a test suite sends from one address, often in parallel); a connection beyond them
	// is answered 421 and closed.
	SMTPMaxConns, SMTPMaxConnsPerIP int
	// SMTPIdleTimeout closes an SMTP connection that sends nothing for
	// that long (1m).
	SMTPIdleTimeout time.Duration
	// SMTPNoProgressTimeout closes an SMTP connection that delivers
	// nothing (no accepted RCPT, no DATA) for that long, NOOPs and RSETs
	// notwithstanding (15s); at the connection cap, the connection that has
	// delivered nothing for longest, a quarter of it at least, makes room
	// for a new one.
	SMTPNoProgressTimeout time.Duration
	// SMTPBufferBytes bounds the memory all SMTP connections together
	// hold for messages being received (64 MiB, and at least
	// MaxMessageBytes): a DATA waits for room (see smtpBudget). There is
	// no flag: it follows from the memory of the box, not from the mail.
	SMTPBufferBytes int64
	// SMTPAuthFile, when set, is an htpasswd-style file of bcrypt
	// credentials (USER:HASH lines) that SMTP clients must authenticate
	// with; by default any credentials are accepted and none are needed.
	SMTPAuthFile string
	// SMTPAuthMaxFailures failed logins of one client address with one
	// user name (5), or SMTPAuthMaxFailuresPerIP of one address with any
	// (50, for CI runners that share an address), refuse it with 421 for
	// SMTPAuthLockout (5m); each failure after the first is answered later
	// than the one before.
	SMTPAuthMaxFailures, SMTPAuthMaxFailuresPerIP int
	SMTPAuthLockout                               time.Duration
	// MaxEmailsPerInbox and MaxStoreBytes bound storage; the oldest emails
	// are evicted beyond them (10000 emails, 1 GiB of payloads).
	MaxEmailsPerInbox int
	MaxStoreBytes     int64
	// SignAtIngest signs every payload of an encrypted email before SMTP
	// answers 250. By default only the metadata is; the parsed and raw
	// payloads are encrypted at once but signed after the answer, in the
	// background or by the first read (see signer), which makes encrypted
	// ingest about twice as fast.
	SignAtIngest bool
	// SigningKey is the server's ML-DSA-65 key; nil loads it from DataDir
	// (creating it on first start) or, in memory, generates one.
	SigningKey *crypto.SigningKey
	// DNSServers are the DNS servers (HOST:PORT) the authentication checks
	// ask, through a cache (see server/dnsresolve); empty means the
	// system's resolvers (/etc/resolv.conf).
	DNSServers []string
	// Resolver, when set, answers the checks' DNS queries instead (tests
	// and offline demos); DNSServers is then unused.
	Resolver emailauth.Resolver
	// AuthBudget bounds the checks of one email (2s; 250ms for loopback
	// senders when Resolver is nil).
	AuthBudget time.Duration
	// Spamd is SpamAssassin's spamd (HOST:PORT): each mail is scored at
	// ingest, alongside the authentication checks, and the score stored in
	// its parsed content (see spam.go). "" scores nothing.
	Spamd string
	// SpamdBudget bounds how long scoring may hold a mail back (3s); a
	// mail spamd has not scored by then is stored with the reason.
	SpamdBudget time.Duration
	// TLSConfig enables STARTTLS on SMTP (see server/tlscert).
	TLSConfig *tls.Config
	// SMTPRequireTLS refuses MAIL and AUTH before STARTTLS with 530 5.7.0;
	// it needs TLSConfig.
	SMTPRequireTLS bool
	// HeartbeatInterval is the event stream's keep-alive period (30s).
	HeartbeatInterval time.Duration
	// Welcome says what the page at / tells a browser, given the HTTP and
	// SMTP listeners' addresses; it is asked per request, so it may name
	// what starts after the server (the SSH box). Unset: the listeners'
	// own addresses, no version, SSH off.
	Welcome func(httpAddr, smtpAddr string) httpapi.Welcome
	// Now is the clock (time.Now); inject one to test expiry.
	Now func() time.Time
	// SweepInterval is how often expired inboxes are removed (1s).
	SweepInterval time.Duration
	// Webhooks configures the webhook engine; nil means webhook.DefaultConfig().
	// Its store (Records or Shared) and Logger are taken from this Config.
	Webhooks *webhook.Config
	// Logger receives operational logs; nil discards them. Secrets are
	// never logged.
	Logger *slog.Logger
}

// withDefaults returns a copy of cfg with defaults applied and validated.
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
	domains, err := NormalizeDomains(cfg.Domains)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	cfg.Domains = domains
	if cfg.EncryptionPolicy == "" {
		cfg.EncryptionPolicy = model.PolicyEnabled
	}
	if err := CheckEncryptionPolicy(cfg.EncryptionPolicy); err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if err := cfg.applyCompat(); err != nil {
		return cfg, err
	}
	if cfg.EncryptionContext == "" {
		cfg.EncryptionContext = crypto.DefaultContext
		if cfg.Compat == CompatReference {
			cfg.EncryptionContext = ReferenceEncryptionContext
		}
	}
	cfg.Hostname = traceToken(cfg.Hostname, "")
	if cfg.Hostname == "" {
		name, _ := os.Hostname()
		cfg.Hostname = traceToken(name, "sandview")
	}
	if cfg.DefaultTTL == 0 {
		cfg.DefaultTTL = DefaultTTL
	}
	if cfg.MaxTTL == 0 {
		cfg.MaxTTL = DefaultMaxTTL
	}
	if cfg.MaxTTL < MinTTL || cfg.DefaultTTL < MinTTL || cfg.DefaultTTL > cfg.MaxTTL {
		return cfg, fmt.Errorf("config: TTLs must satisfy %s <= default (%s) <= max (%s)", MinTTL, cfg.DefaultTTL, cfg.MaxTTL)
	}
	if cfg.MaxMessageBytes == 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.MaxEmailsPerInbox == 0 {
		cfg.MaxEmailsPerInbox = DefaultMaxEmailsPerInbox
	}
	if cfg.MaxStoreBytes == 0 {
		cfg.MaxStoreBytes = DefaultMaxStoreBytes
	}
	if err := cfg.smtpDefaults(); err != nil {
		return cfg, err
	}
	if cfg.MaxMessageBytes < 0 || cfg.MaxEmailsPerInbox < 0 || cfg.MaxStoreBytes < 0 {
		return cfg, errors.New("config: size and count limits must be positive")
	}
	if cfg.AuthBudget < 0 || cfg.HeartbeatInterval < 0 || cfg.SweepInterval < 0 {
		return cfg, errors.New("config: durations must be positive")
	}
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if cfg.SpamdBudget <= 0 {
		cfg.SpamdBudget = DefaultSpamdBudget
	}
	if cfg.SweepInterval == 0 {
		cfg.SweepInterval = DefaultSweepInterval
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg, nil
}

// CheckEncryptionPolicy returns an error unless policy is one of always,
// enabled, disabled and never.
func CheckEncryptionPolicy(policy string) error {
	switch policy {
	case model.PolicyAlways, model.PolicyEnabled, model.PolicyDisabled, model.PolicyNever:
		return nil
	}
	return fmt.Errorf("encryption policy %q is not one of always, enabled, disabled, never", policy)
}

// NormalizeDomains lowercases, checks and de-duplicates recipient domains;
// none are the defaults.
func NormalizeDomains(in []string) ([]string, error) {
	if len(in) == 0 {
		return DefaultDomains(), nil
	}
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, d := range in {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" {
			continue
		}
		if !validDomain(d) {
			return nil, fmt.Errorf("%q is not a valid domain name", d)
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return DefaultDomains(), nil
	}
	return out, nil
}

// validDomain accepts dot-separated labels of letters, digits and hyphens
// (not at a label's ends), at most 253 characters.
func validDomain(d string) bool {
	if len(d) == 0 || len(d) > 253 {
		return false
	}
	for _, label := range strings.Split(d, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}
