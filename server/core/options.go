package core

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"sandview/crypto"
	"sandview/model"
)

// Defaults of Options.
const (
	DefaultTTL               = time.Hour
	DefaultMaxTTL            = 168 * time.Hour
	MinTTL                   = time.Minute
	DefaultMaxEmailsPerInbox = 10000
	DefaultMaxStoreBytes     = 1 << 30
	DefaultSweepInterval     = time.Second
	// DefaultAuthBudget bounds the DNS work of one email's authentication
	// checks; DefaultLoopbackAuthBudget applies to mail from a loopback
	// address checked against the system resolver.
	DefaultAuthBudget         = 2 * time.Second
	DefaultLoopbackAuthBudget = 250 * time.Millisecond
	// DefaultSpamdBudget bounds how long spamd may hold a mail back.
	DefaultSpamdBudget = 3 * time.Second
)

// DefaultDomains are the recipient domains served when Options.Domains is
// empty.
func DefaultDomains() []string { return []string{"sandbox.test", "localhost"} }

// WithDefaults returns a copy of o with the zero fields set to their
// defaults, or the first value that is out of range. Open applies it.
func (o Options) WithDefaults() (Options, error) {
	domains, err := NormalizeDomains(o.Domains)
	if err != nil {
		return o, err
	}
	o.Domains = domains
	if o.EncryptionPolicy == "" {
		o.EncryptionPolicy = model.PolicyEnabled
	}
	if err := CheckEncryptionPolicy(o.EncryptionPolicy); err != nil {
		return o, err
	}
	if o.EncryptionContext == "" {
		o.EncryptionContext = crypto.DefaultContext
	}
	o.Hostname = TraceToken(o.Hostname, "")
	if o.Hostname == "" {
		name, _ := os.Hostname()
		o.Hostname = TraceToken(name, "sandview")
	}
	if err := o.ttlDefaults(); err != nil {
		return o, err
	}
	if o.MaxEmailsPerInbox == 0 {
		o.MaxEmailsPerInbox = DefaultMaxEmailsPerInbox
	}
	if o.MaxStoreBytes == 0 {
		o.MaxStoreBytes = DefaultMaxStoreBytes
	}
	if o.MaxEmailsPerInbox < 0 || o.MaxStoreBytes < 0 {
		return o, errors.New("size and count limits must be positive")
	}
	if o.AuthBudget < 0 || o.LoopbackAuthBudget < 0 || o.SweepInterval < 0 {
		return o, errors.New("durations must be positive")
	}
	if o.AuthBudget == 0 {
		// Without an explicit budget, mail from a loopback address gets
		// the short one when checked against the system's resolvers.
		o.AuthBudget, o.LoopbackAuthBudget = DefaultAuthBudget, DefaultLoopbackAuthBudget
	}
	if o.SpamdBudget <= 0 {
		o.SpamdBudget = DefaultSpamdBudget
	}
	if o.SweepInterval == 0 {
		o.SweepInterval = DefaultSweepInterval
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// ttlDefaults applies and checks the inbox lifetimes.
func (o *Options) ttlDefaults() error {
	if o.MinTTL == 0 {
		o.MinTTL = MinTTL
	}
	if o.DefaultTTL == 0 {
		o.DefaultTTL = DefaultTTL
	}
	if o.MaxTTL == 0 {
		o.MaxTTL = DefaultMaxTTL
	}
	if o.MaxTTL < o.MinTTL || o.DefaultTTL < o.MinTTL || o.DefaultTTL > o.MaxTTL {
		return fmt.Errorf("TTLs must satisfy %s <= default (%s) <= max (%s)", o.MinTTL, o.DefaultTTL, o.MaxTTL)
	}
	return nil
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
