// Package smtpd is the sandbox service's SMTP transport: a receive-only
// ESMTP server (go-smtp) whose sessions hand each accepted message to the
// core (core.Core.Arrive). It owns what is SMTP's alone: the session and
// its replies, the connection caps, the memory budget of messages being
// received, SMTP AUTH and the log of refusals.
package smtpd

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/server/core"
)

// Settings configures a Server; every field is used as given (the
// composition root applies the defaults).
type Settings struct {
	// Hostname is the name in the greeting.
	Hostname string
	// Domains are the served domains, named in a refusal.
	Domains []string
	// MaxMessageBytes is the size limit.
	MaxMessageBytes int64
	// MaxConns and MaxConnsPerIP cap concurrent connections.
	MaxConns, MaxConnsPerIP int
	// IdleTimeout closes a connection that sends nothing for that long.
	IdleTimeout time.Duration
	// NoProgressTimeout closes a connection that delivers nothing for that
	// long, whatever it sends (0: never); at the connection cap, one that
	// has delivered nothing for a quarter of it makes room for a new one
	// (see trackedConn).
	NoProgressTimeout time.Duration
	// BufferBytes bounds the memory of messages being received.
	BufferBytes int64
	// AuthFile is an htpasswd-style file of bcrypt credentials ("" any).
	AuthFile string
	// AuthMaxFailures failed logins of one client address with one user,
	// or AuthMaxFailuresPerIP of one address, lock it out for AuthLockout
	// (see authGuard).
	AuthMaxFailures, AuthMaxFailuresPerIP int
	AuthLockout                           time.Duration
	// TLSConfig enables STARTTLS.
	TLSConfig *tls.Config
	// RequireTLS refuses MAIL and AUTH before STARTTLS (see errTLSRequired);
	// the composition root allows it only with TLSConfig.
	RequireTLS bool
	// Now is the clock.
	Now func() time.Time
	// Logger receives operational logs.
	Logger *slog.Logger
}

// Server is the SMTP transport of one core.
type Server struct {
	core  *core.Core
	set   Settings
	guard *smtpGuard // connection caps, memory, refusals, credentials
	srv   *smtp.Server
}

// New configures the SMTP server of c. go-smtp is given no message size
// and no recipient limit: the session checks MAIL's SIZE, reads DATA
// itself (readMessage) and counts RCPTs (Rcpt), so that every refusal is
// recorded; replyConn puts the limits in EHLO's SIZE and LIMITS lines.
func New(c *core.Core, set Settings) (*Server, error) {
	guard, err := newSMTPGuard(set)
	if err != nil {
		return nil, err
	}
	s := &Server{core: c, set: set, guard: guard}
	srv := smtp.NewServer(smtp.BackendFunc(s.newSession))
	srv.Domain = set.Hostname
	srv.MaxLineLength = smtpMaxLineLength
	srv.ReadTimeout = set.IdleTimeout
	srv.WriteTimeout = smtpWriteTimeout
	srv.EnableSMTPUTF8 = true
	// A sandbox: AUTH on plaintext too, unless TLS is required (then the
	// session refuses it before STARTTLS, see Auth).
	srv.AllowInsecureAuth = true
	srv.TLSConfig = set.TLSConfig
	srv.ErrorLog = slogPrintf{guard.drops}
	s.srv = srv
	return s, nil
}

// Serve serves SMTP on l until Close, within the connection caps (see
// limitListener). Every reply leaves in one write (see replyConn).
func (s *Server) Serve(l net.Listener) error {
	done := make(chan struct{})
	defer close(done)
	go s.guard.drops.run(done)
	go s.guard.auth.run(done)
	return s.srv.Serve(replyListener{Listener: limitListener{Listener: l, s: s}, maxMessageBytes: s.set.MaxMessageBytes})
}

// Close closes the listeners and every connection.
func (s *Server) Close() error {
	if err := s.srv.Close(); err != nil && !errors.Is(err, smtp.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
