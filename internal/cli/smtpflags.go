package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"sandview/server"
)

// smtpLimitEnv maps the SMTP size and limit flags, which `serve` and
// `sandview --local` share, to their environment variables; a flag given on
// the command line wins over the variable.
var smtpLimitEnv = map[string]string{
	"max-message-bytes":     "SVC_MAX_MESSAGE_BYTES",
	"smtp-max-conns":        "SVC_SMTP_MAX_CONNS",
	"smtp-max-conns-per-ip": "SVC_SMTP_MAX_CONNS_PER_IP",
	"smtp-idle-timeout":     "SVC_SMTP_IDLE_TIMEOUT",
	"smtp-auth-file":        "SVC_SMTP_AUTH_FILE",
}

// smtpLimitOptions are the SMTP size and limit flags.
type smtpLimitOptions struct {
	flags           *pflag.FlagSet
	maxMessageBytes int64
	maxConns        int
	maxConnsPerIP   int
	idleTimeout     time.Duration
	authFile        string
}

// register adds the flags to f; prefix starts their help ("with --local: ").
func (o *smtpLimitOptions) register(f *pflag.FlagSet, prefix string) {
	o.flags = f
	f.Int64Var(&o.maxMessageBytes, "max-message-bytes", server.DefaultMaxMessageBytes, prefix+"SMTP message size limit: a larger declared SIZE or DATA is refused with 552 (SVC_MAX_MESSAGE_BYTES)")
	f.IntVar(&o.maxConns, "smtp-max-conns", server.DefaultSMTPMaxConns, prefix+"concurrent SMTP connections; more are answered 421 (SVC_SMTP_MAX_CONNS)")
	f.IntVar(&o.maxConnsPerIP, "smtp-max-conns-per-ip", server.DefaultSMTPMaxConnsPerIP, prefix+"concurrent SMTP connections from one client IP (SVC_SMTP_MAX_CONNS_PER_IP)")
	f.DurationVar(&o.idleTimeout, "smtp-idle-timeout", server.DefaultSMTPIdleTimeout, prefix+"close an SMTP connection idle this long (SVC_SMTP_IDLE_TIMEOUT)")
	f.StringVar(&o.authFile, "smtp-auth-file", "", prefix+"htpasswd-style file of bcrypt logins SMTP clients must AUTH with (SVC_SMTP_AUTH_FILE; default: any login is accepted, none is needed)")
}

// applyEnv sets every flag not given on the command line from its
// environment variable.
func (o *smtpLimitOptions) applyEnv() error {
	if o.flags == nil { // not registered: the defaults
		return nil
	}
	return applyEnv(o.flags, smtpLimitEnv)
}

// applyEnv sets every flag of env not given on the command line from its
// environment variable.
func applyEnv(flags *pflag.FlagSet, env map[string]string) error {
	for name, variable := range env {
		value, ok := os.LookupEnv(variable)
		if !ok || flags.Changed(name) {
			continue
		}
		if err := flags.Set(name, value); err != nil {
			return fmt.Errorf("environment variable %s: %w", variable, err)
		}
	}
	return nil
}

// apply puts the limits in cfg (zero values: the server's defaults).
func (o *smtpLimitOptions) apply(cfg *server.Config) {
	cfg.MaxMessageBytes = o.maxMessageBytes
	cfg.SMTPMaxConns, cfg.SMTPMaxConnsPerIP = o.maxConns, o.maxConnsPerIP
	cfg.SMTPIdleTimeout = o.idleTimeout
	cfg.SMTPAuthFile = o.authFile
}
