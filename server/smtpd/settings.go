package smtpd

import (
	"crypto/tls"
	"errors"
	"time"
)

// Defaults of Settings. The connection limits are sized for a 1 GB box
// with the default message size.
const (
	DefaultMaxMessageBytes = 10 << 20
	// DefaultMaxConnsPerIP is high because a test suite sends from one
	// address, often in parallel.
	DefaultMaxConns          = 200
	DefaultMaxConnsPerIP     = 50
	DefaultIdleTimeout       = time.Minute
	DefaultNoProgressTimeout = 15 * time.Second
	DefaultBufferBytes       = 64 << 20
	// SMTP AUTH lockout (see Settings.AuthMaxFailures).
	DefaultAuthMaxFailures      = 5
	DefaultAuthMaxFailuresPerIP = 50
	DefaultAuthLockout          = 5 * time.Minute
)

// Settings are the SMTP transport's settings; a zero field means its
// default (see WithDefaults, which New applies).
type Settings struct {
	// MaxMessageBytes is the size limit (10 MiB): a larger declared SIZE
	// or DATA is refused with 552.
	MaxMessageBytes int64
	// MaxConns and MaxConnsPerIP cap concurrent connections, in total and
	// from one client IP (200, 50); a connection beyond them is answered
	// 421 and closed.
	MaxConns, MaxConnsPerIP int
	// IdleTimeout closes a connection that sends nothing for that long
	// (1m).
	IdleTimeout time.Duration
	// NoProgressTimeout closes a connection that delivers nothing (no
	// accepted RCPT, no DATA) for that long, NOOPs and RSETs
	// notwithstanding (15s); at the connection cap, the connection that
	// has delivered nothing for longest, a quarter of it at least, makes
	// room for a new one (see trackedConn).
	NoProgressTimeout time.Duration
	// BufferBytes bounds the memory all connections together hold for
	// messages being received (64 MiB, and at least MaxMessageBytes): a
	// DATA waits for room (see smtpBudget). There is no flag: it follows
	// from the memory of the box, not from the mail.
	BufferBytes int64
	// AuthFile, when set, is an htpasswd-style file of bcrypt credentials
	// (USER:HASH lines) that clients must authenticate with; by default
	// any credentials are accepted and none are needed.
	AuthFile string
	// AuthMaxFailures failed logins of one client address with one user
	// name (5), or AuthMaxFailuresPerIP of one address with any (50, for
	// CI runners that share an address), refuse it with 421 for
	// AuthLockout (5m); each failure after the first is answered later
	// than the one before (see authGuard).
	AuthMaxFailures, AuthMaxFailuresPerIP int
	AuthLockout                           time.Duration
	// TLSConfig enables STARTTLS (see server/tlscert).
	TLSConfig *tls.Config
	// RequireTLS refuses MAIL and AUTH before STARTTLS with 530 5.7.0 (see
	// errTLSRequired); it needs TLSConfig.
	RequireTLS bool
}

// WithDefaults returns a copy of set with the zero fields set to their
// defaults, or the first value that is out of range.
func (set Settings) WithDefaults() (Settings, error) {
	if set.RequireTLS && set.TLSConfig == nil {
		return set, errors.New("requiring TLS on SMTP needs a TLS certificate")
	}
	if set.MaxConns < 0 || set.MaxConnsPerIP < 0 || set.IdleTimeout < 0 || set.BufferBytes < 0 {
		return set, errors.New("SMTP connection limits, idle timeout and buffer size must be positive")
	}
	if set.AuthMaxFailures < 0 || set.AuthMaxFailuresPerIP < 0 || set.AuthLockout < 0 {
		return set, errors.New("SMTP AUTH failure limits and lockout must be positive")
	}
	if set.AuthMaxFailures == 0 {
		set.AuthMaxFailures = DefaultAuthMaxFailures
	}
	if set.AuthMaxFailuresPerIP == 0 {
		set.AuthMaxFailuresPerIP = max(DefaultAuthMaxFailuresPerIP, set.AuthMaxFailures)
	}
	if set.AuthLockout == 0 {
		set.AuthLockout = DefaultAuthLockout
	}
	if set.MaxConns == 0 {
		set.MaxConns = DefaultMaxConns
	}
	if set.MaxConnsPerIP == 0 {
		set.MaxConnsPerIP = min(DefaultMaxConnsPerIP, set.MaxConns)
	}
	if set.IdleTimeout == 0 {
		set.IdleTimeout = DefaultIdleTimeout
	}
	if set.NoProgressTimeout < 0 {
		return set, errors.New("the SMTP no-progress timeout must be positive")
	}
	if set.NoProgressTimeout == 0 {
		set.NoProgressTimeout = DefaultNoProgressTimeout
	}
	if set.MaxMessageBytes == 0 {
		set.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if set.MaxMessageBytes < 0 {
		return set, errors.New("size and count limits must be positive")
	}
	if set.BufferBytes == 0 {
		set.BufferBytes = DefaultBufferBytes
	}
	// One message of the largest size must fit, with the byte that tells
	// it is too large.
	set.BufferBytes = max(set.BufferBytes, set.MaxMessageBytes+1)
	return set, nil
}
