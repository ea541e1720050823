// Package smtpd is the sandbox service's SMTP transport: a receive-only
// ESMTP server (go-smtp) whose sessions hand each accepted message to the
// core (core.Core.Arrive). It owns what is SMTP's alone: the session and
// its replies, the connection caps, the memory budget of messages being
// received, SMTP AUTH and the log of refusals.
package smtpd

import (
	"errors"
	"fmt"
	"net"

	"github.com/emersion/go-smtp"

	"sandview/server/core"
)

// Server is the SMTP transport of one core.
type Server struct {
	core  *core.Core
	set   Settings
	opts  core.Options // the core's: host name, domains, clock, logger
	guard *smtpGuard   // connection caps, memory, refusals, credentials
	srv   *smtp.Server
}

// New configures the SMTP server of c, with set's defaults applied (see
// Settings.WithDefaults); the host name, the domains, the clock and the
// logger are the core's. go-smtp is given no message size
// and no recipient limit: the session checks MAIL's SIZE, reads DATA
// itself (readMessage) and counts RCPTs (Rcpt), so that every refusal is
// recorded; replyConn puts the limits in EHLO's SIZE and LIMITS lines.
func New(c *core.Core, set Settings) (*Server, error) {
	set, err := set.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("smtp settings: %w", err)
	}
	opts := c.Options()
	guard, err := newSMTPGuard(set, opts)
	if err != nil {
		return nil, err
	}
	s := &Server{core: c, set: set, opts: opts, guard: guard}
	srv := smtp.NewServer(smtp.BackendFunc(s.newSession))
	srv.Domain = opts.Hostname
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
