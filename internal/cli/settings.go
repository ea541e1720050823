package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"

	"sandview/crypto"
	"sandview/internal/cli/cmdutil"
	"sandview/internal/sshbox"
	"sandview/model"
	"sandview/server"
	"sandview/server/core"
	"sandview/server/smtpd"
	"sandview/server/webhook"
)

// Every setting of the embedded server is declared once, in
// serverSettings.table: its flag, its SVC_* environment variable, its
// default and its help. `serve --help` (and, for the settings marked local,
// `sandview --help`) is generated from the table, each flag naming its
// variable; applyEnv fills the flags not given on the command line from
// the variables.

// serverSettings are the values of the server's settings: the table binds
// each straight into the field of the package that uses it (cfg's
// embedded core, SMTP and HTTP settings, the webhook engine's webhooks),
// and the command's own into the fields below (the SSH transport's
// listener and limits into its sshbox.Config).
type serverSettings struct {
	cfg             server.Config
	webhooks        webhook.Config
	tlsCert, tlsKey string
	starttls        bool
	logLevel        string
	advertise       string
	memoryLimit     int64
	gcPercent       int
	ssh             sshbox.Config
}

// setting is one server setting.
type setting struct {
	flag string
	env  string
	help string
	// alias is a second variable read when env is unset or empty (the
	// reference's name of the same setting).
	alias string
	// note says what the default means when the flag's own default does
	// not show it ("default: in memory").
	note string
	// local: `sandview --local` takes it too.
	local bool
	// bind registers the flag, with its default, on a flag set.
	bind func(f *pflag.FlagSet, name, usage string)
	// check, when set, checks the value given (by flag or variable) beyond
	// its type.
	check func() error
}

// usage is the flag's help: prefix, the help, and the variable.
func (s setting) usage(prefix string) string {
	variable := "$" + s.env
	if s.alias != "" {
		variable += " or $" + s.alias
	}
	if s.note != "" {
		variable += "; " + s.note
	}
	return prefix + s.help + " (" + variable + ")"
}

// table declares every server setting over s's fields.
func (s *serverSettings) table() []setting {
	c, w := &s.cfg, &s.webhooks
	return []setting{
		{flag: "http", env: "SVC_HTTP", local: true, help: "HTTP API listen address", bind: stringFlag(&c.HTTPAddr, server.DefaultHTTPAddr)},
		{flag: "smtp", env: "SVC_SMTP", local: true, help: "SMTP listen address", bind: stringFlag(&c.SMTPAddr, server.DefaultSMTPAddr)},
		{flag: "api-key", env: "SVC_API_KEY", note: "default: generated and saved", help: "API key clients must send", bind: stringFlag(&c.APIKey, "")},
		{flag: "domain", env: "SVC_DOMAINS", help: "allowed recipient domains, comma-separated or repeated", bind: stringsFlag(&c.Domains, core.DefaultDomains()), check: func() error { _, err := core.NormalizeDomains(c.Domains); return err }},
		{flag: "encryption-policy", env: "SVC_ENCRYPTION_POLICY", help: "always, enabled, disabled or never", bind: stringFlag(&c.EncryptionPolicy, model.PolicyEnabled), check: func() error { return core.CheckEncryptionPolicy(c.EncryptionPolicy) }},
		{flag: "encryption-context", env: "SVC_ENCRYPTION_CONTEXT", note: "default with --compat reference: " + server.ReferenceEncryptionContext, help: "encryption context string", bind: stringFlag(&c.EncryptionContext, crypto.DefaultContext)},
		{flag: "data", env: "SVC_DATA", note: "default: in memory", help: "persist inboxes, emails and keys in this directory", bind: stringFlag(&c.DataDir, "")},
		{flag: "store", env: "SVC_STORE", note: "excludes --data", help: "keep everything in PostgreSQL, shared by any number of replicas: postgres://USER@HOST:PORT/DB", bind: stringFlag(&c.StoreURL, "")},
		{flag: "dev", env: "SVC_SDK_DEVELOPMENT", help: "enable the test-email endpoint", bind: boolFlag(&c.HTTP.Dev, false)},
		{flag: "default-ttl", env: "SVC_DEFAULT_TTL", help: "inbox TTL when none is requested", bind: durationFlag(&c.DefaultTTL, core.DefaultTTL)},
		{flag: "max-ttl", env: "SVC_MAX_TTL", help: "longest inbox TTL", bind: durationFlag(&c.MaxTTL, core.DefaultMaxTTL)},
		{flag: "max-message-bytes", env: "SVC_MAX_MESSAGE_BYTES", local: true, help: "SMTP message size limit: a larger declared SIZE or DATA is refused with 552", bind: int64Flag(&c.SMTP.MaxMessageBytes, smtpd.DefaultMaxMessageBytes)},
		{flag: "smtp-max-conns", env: "SVC_SMTP_MAX_CONNS", local: true, help: "concurrent SMTP connections; more are answered 421", bind: intFlag(&c.SMTP.MaxConns, smtpd.DefaultMaxConns)},
		{flag: "smtp-max-conns-per-ip", env: "SVC_SMTP_MAX_CONNS_PER_IP", local: true, help: "concurrent SMTP connections from one client IP", bind: intFlag(&c.SMTP.MaxConnsPerIP, smtpd.DefaultMaxConnsPerIP)},
		{flag: "smtp-idle-timeout", env: "SVC_SMTP_IDLE_TIMEOUT", local: true, help: "close an SMTP connection idle this long", bind: durationFlag(&c.SMTP.IdleTimeout, smtpd.DefaultIdleTimeout)},
		{flag: "smtp-no-progress-timeout", env: "SVC_SMTP_NO_PROGRESS_TIMEOUT", local: true, help: "close an SMTP connection that delivers nothing this long, NOOPs or not; at the connection cap the one idle longest makes room", bind: durationFlag(&c.SMTP.NoProgressTimeout, smtpd.DefaultNoProgressTimeout)},
		{flag: "smtp-auth-file", env: "SVC_SMTP_AUTH_FILE", local: true, note: "default: any login is accepted, none is needed", help: "htpasswd-style file of bcrypt logins SMTP clients must AUTH with", bind: stringFlag(&c.SMTP.AuthFile, "")},
		{flag: "smtp-auth-max-failures", env: "SVC_SMTP_AUTH_MAX_FAILURES", local: true, help: "failed SMTP logins of one client IP with one user before it is refused for --smtp-auth-lockout", bind: atLeastFlag(&c.SMTP.AuthMaxFailures, smtpd.DefaultAuthMaxFailures, 1, "failures")},
		{flag: "smtp-auth-max-failures-per-ip", env: "SVC_SMTP_AUTH_MAX_FAILURES_PER_IP", local: true, help: "failed SMTP logins of one client IP with any user before it is refused for --smtp-auth-lockout", bind: atLeastFlag(&c.SMTP.AuthMaxFailuresPerIP, smtpd.DefaultAuthMaxFailuresPerIP, 1, "failures")},
		{flag: "smtp-auth-lockout", env: "SVC_SMTP_AUTH_LOCKOUT", local: true, help: "how long too many failed SMTP logins are refused with 421", bind: durationFlag(&c.SMTP.AuthLockout, smtpd.DefaultAuthLockout)},
		{flag: "max-emails-per-inbox", env: "SVC_MAX_EMAILS_PER_INBOX", local: true, help: "oldest emails are evicted beyond this", bind: intFlag(&c.MaxEmailsPerInbox, core.DefaultMaxEmailsPerInbox)},
		{flag: "max-store-bytes", env: "SVC_MAX_STORE_BYTES", local: true, help: "oldest emails are evicted beyond this total", bind: int64Flag(&c.MaxStoreBytes, core.DefaultMaxStoreBytes)},
		{flag: "smtp-starttls", env: "SVC_SMTP_STARTTLS", local: true, help: "offer STARTTLS on SMTP, with --tls-cert's certificate or one made at start; false: plain SMTP only", bind: boolFlag(&s.starttls, true)},
		{flag: "smtp-require-tls", env: "SVC_SMTP_REQUIRE_TLS", local: true, help: "refuse MAIL and AUTH before STARTTLS (530 5.7.0)", bind: boolFlag(&c.SMTP.RequireTLS, false)},
		{flag: "tls-cert", env: "SVC_TLS_CERT", local: true, note: "default: one made at start, its public part saved as smtp-tls-cert.pem in the data directory", help: "PEM certificate (chain) SMTP's STARTTLS presents", bind: stringFlag(&s.tlsCert, "")},
		{flag: "tls-key", env: "SVC_TLS_KEY", local: true, help: "PEM private key of --tls-cert", bind: stringFlag(&s.tlsKey, "")},
		{flag: "log-level", env: "SVC_LOG_LEVEL", help: "debug, info, warn or error", bind: stringFlag(&s.logLevel, "info"), check: func() error { _, err := s.slogLevel(); return err }},
		{flag: "sign-at-ingest", env: "SVC_SIGN_AT_INGEST", local: true, help: "sign every encrypted payload before answering SMTP; by default parsed and raw are signed just after", bind: boolFlag(&c.SignAtIngest, false)},
		{flag: "dns", env: "SVC_DNS", note: "default: the system's resolvers", local: true, help: "DNS server(s) HOST:PORT the authentication checks ask, through a cache", bind: stringsFlag(&c.DNSServers, nil)},
		{flag: "compat", env: "SVC_COMPAT", help: "wire profile: contract or reference", bind: stringFlag((*string)(&c.Compat), string(server.CompatContract)), check: func() error { _, err := server.ParseCompat(string(c.Compat)); return err }},
		{flag: "spamd", env: "SVC_SPAMD", local: true, help: "score each mail with SpamAssassin's spamd at HOST:PORT; a mail it has not scored within 3s is stored without a score", bind: stringFlag(&c.Spamd, "")},
		{flag: "advertise", env: "SVC_ADVERTISE", note: "default: this machine's name when bound to all interfaces", help: "host name teammates reach the box by, in the banner, the connect block and the SSH viewer's hint", bind: stringFlag(&s.advertise, "")},
		{flag: "catch-all", env: "SVC_CATCH_ALL", help: "store mail for any address no inbox has, in any domain, in this inbox (created if missing)", bind: stringFlag(&c.CatchAll, "")},
		{flag: "memory-limit", env: "SVC_MEMORY_LIMIT", note: "ignored while GOMEMLIMIT or GOGC is set, unless given", help: "soft limit of the server's memory, as GOMEMLIMIT: 512MiB, 2GiB; 0 for none", bind: byteSizeFlag(&s.memoryLimit, defaultMemoryLimit)},
		{flag: "gc-percent", env: "SVC_GC_PERCENT", note: "ignored while GOMEMLIMIT or GOGC is set, unless given", help: "heap growth, in percent of the live heap, that starts a collection, as GOGC", bind: atLeastFlag(&s.gcPercent, defaultGCPercent, 1, "percent")},
		{flag: "chaos", env: "SVC_CHAOS_ENABLED", alias: "VSB_CHAOS_ENABLED", note: "true, 1, yes, on; anything else is off", help: "let inboxes have chaos (fault injection at SMTP: latency, drops, errors, greylisting, blackholing), set per inbox over the API", bind: chaosFlag(&c.Chaos)},
		{flag: "ssh", env: "SVC_SSH", help: "serve the TUI and the CLI over SSH on HOST:PORT, to the keys of --ssh-authorized-keys", bind: stringFlag(&s.ssh.Addr, "")},
		{flag: "ssh-authorized-keys", env: "SVC_SSH_AUTHORIZED_KEYS", note: "default: ssh/authorized_keys in the data directory", help: "authorized_keys file of the SSH users, read again when it changes", bind: stringFlag(&s.ssh.AuthorizedKeysPath, "")},
		{flag: "ssh-max-sessions", env: "SVC_SSH_MAX_SESSIONS", help: "SSH sessions at once, in total", bind: intFlag(&s.ssh.MaxSessions, sshbox.DefaultMaxSessions)},
		{flag: "ssh-max-sessions-per-key", env: "SVC_SSH_MAX_SESSIONS_PER_KEY", help: "SSH sessions at once per key", bind: intFlag(&s.ssh.MaxSessionsPerUser, sshbox.DefaultMaxSessionsPerUser)},
		{flag: "ssh-idle-timeout", env: "SVC_SSH_IDLE_TIMEOUT", help: "close an SSH connection idle this long", bind: durationFlag(&s.ssh.IdleTimeout, sshbox.DefaultIdleTimeout)},
		{flag: "webhooks", env: "SVC_WEBHOOK_ENABLED", help: "serve the webhook API and deliver webhooks", bind: boolFlag(&w.Enabled, true)},
		{flag: "webhook-max-global", env: "SVC_WEBHOOK_MAX_GLOBAL", help: "webhooks on the server", bind: atLeastFlag(&w.MaxGlobal, webhook.DefaultMaxGlobal, 0, "int")},
		{flag: "webhook-max-per-inbox", env: "SVC_WEBHOOK_MAX_INBOX", help: "webhooks per inbox", bind: atLeastFlag(&w.MaxPerInbox, webhook.DefaultMaxPerInbox, 0, "int")},
		{flag: "webhook-timeout", env: "SVC_WEBHOOK_TIMEOUT", help: "milliseconds one delivery attempt may take", bind: millisFlag(&w.Timeout, webhook.DefaultTimeout, 1)},
		{flag: "webhook-max-attempts", env: "SVC_WEBHOOK_MAX_RETRIES", help: "attempts of one delivery", bind: atLeastFlag(&w.MaxAttempts, webhook.DefaultMaxAttempts, 1, "int")},
		{flag: "webhook-max-queued-retries", env: "SVC_WEBHOOK_MAX_RETRIES_PER_WEBHOOK", help: "retries waiting per webhook", bind: atLeastFlag(&w.MaxQueuedRetriesPerWebhook, webhook.DefaultMaxQueuedRetriesPerWebhook, 0, "int")},
		{flag: "webhook-allow-http", env: "SVC_WEBHOOK_ALLOW_HTTP", help: "accept http:// webhook URLs", bind: boolFlag(&w.AllowHTTP, false)},
		{flag: "private-webhooks", env: "SVC_WEBHOOK_ALLOW_PRIVATE", note: "default: such URLs are refused and such connections blocked", help: "let webhooks target loopback, private, link-local and cloud metadata addresses", bind: boolFlag(&w.AllowPrivate, false)},
		{flag: "webhook-require-auth-default", env: "SVC_WEBHOOK_REQUIRE_AUTH_DEFAULT", help: "the default of a webhook filter's requireAuth", bind: boolFlag(&w.RequireAuthDefault, false)},
		{flag: "webhook-max-headers", env: "SVC_WEBHOOK_MAX_HEADERS", help: "headers in an email.received payload", bind: atLeastFlag(&w.MaxHeaders, webhook.DefaultMaxHeaders, 0, "int")},
		{flag: "webhook-max-header-value-len", env: "SVC_WEBHOOK_MAX_HEADER_VALUE_LEN", help: "characters of a header value in an email.received payload", bind: atLeastFlag(&w.MaxHeaderValueLen, webhook.DefaultMaxHeaderValueLen, 1, "int")},
	}
}

// registerServe adds every setting's flag to f (serve's).
func (s *serverSettings) registerServe(f *pflag.FlagSet) {
	for _, st := range s.table() {
		st.bind(f, st.flag, st.usage(""))
	}
}

// registerLocal adds the flags of the settings `sandview --local` takes
// to f (the root command's).
func (s *serverSettings) registerLocal(f *pflag.FlagSet) {
	for _, st := range s.table() {
		if st.local {
			st.bind(f, st.flag, st.usage("with --local: "))
		}
	}
}

// applyEnv sets every registered flag of f not given on the command line
// from its variable in env; an unset or empty variable leaves the flag's
// default, and surrounding spaces are ignored. Then it checks every value
// given: a malformed one is a usage error naming where it came from, the
// flag or the variable.
func (s *serverSettings) applyEnv(f *pflag.FlagSet, env environment) error {
	for _, st := range s.table() {
		if f.Lookup(st.flag) == nil {
			continue
		}
		source := "--" + st.flag
		if !f.Changed(st.flag) {
			name := st.env
			value := strings.TrimSpace(env.get(name))
			if value == "" && st.alias != "" {
				name = st.alias
				value = strings.TrimSpace(env.get(name))
			}
			if value == "" {
				continue
			}
			if err := f.Set(st.flag, value); err != nil {
				// pflag's error names the flag: name the variable instead.
				if invalid := (*pflag.InvalidValueError)(nil); errors.As(err, &invalid) {
					err = fmt.Errorf("invalid value %q: %w", value, invalid.Unwrap())
				}
				return cmdutil.UsageError{Msg: fmt.Sprintf("environment variable %s: %v", name, err)}
			}
			source = "environment variable " + name
		}
		if st.check != nil {
			if err := st.check(); err != nil {
				return cmdutil.UsageError{Msg: fmt.Sprintf("%s: %v", source, err)}
			}
		}
	}
	return nil
}

// slogLevel is the log level of --log-level.
func (s *serverSettings) slogLevel() (slog.Level, error) {
	var level slog.Level
	err := level.UnmarshalText([]byte(s.logLevel))
	return level, err
}

// serverConfig is the server's configuration of these settings, with the
// webhook engine's.
func (s *serverSettings) serverConfig() server.Config {
	cfg := s.cfg
	wcfg := s.webhooks
	cfg.Webhooks = &wcfg
	return cfg
}

// The defaults of --memory-limit and --gc-percent: a server holding
// 10,000 small encrypted mails (about 160 MiB of heap, mostly payloads
// the collector need not scan) stays under 200 MiB, one holding 10,000
// plain ones under 60 MiB (scripts/measure-memory). The limit trades CPU for
// memory: at 176 MiB the 10,000 encrypted mails' heap sat at the goal the
// limit leaves it, and the collector ran back to back while their payloads
// were signed (some 300 collections instead of some 80, a fifth of the
// server's CPU a mail) for 3 MiB less RSS.
const (
	defaultMemoryLimit = 180 << 20
	defaultGCPercent   = 25
)

// applyMemoryPolicy sets the Go runtime's soft memory limit and GC percent
// for a long-running server: each from its flag (or variable) when given,
// else from its default unless GOMEMLIMIT or GOGC tunes the runtime
// already. It returns a function restoring the previous values.
func (s *serverSettings) applyMemoryPolicy(f *pflag.FlagSet, env environment) (restore func()) {
	tuned := env.get("GOMEMLIMIT") != "" || env.get("GOGC") != ""
	restoreLimit, restorePercent := func() {}, func() {}
	if f.Changed("memory-limit") || !tuned {
		limit := s.memoryLimit
		if limit == 0 {
			limit = math.MaxInt64 // none
		}
		prev := debug.SetMemoryLimit(limit)
		restoreLimit = func() { debug.SetMemoryLimit(prev) }
	}
	if f.Changed("gc-percent") || !tuned {
		prev := debug.SetGCPercent(s.gcPercent)
		restorePercent = func() { debug.SetGCPercent(prev) }
	}
	return func() { restoreLimit(); restorePercent() }
}
