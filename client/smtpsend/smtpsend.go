// Package smtpsend delivers mail over SMTP with go-smtp's client: the one
// SMTP client of sandview (`sandview send`, `sandview sendmail`, the demo,
// the tests and the measuring scripts).
//
// Mail goes in plain text unless the Dialer asks for STARTTLS: a sandbox
// server offers STARTTLS with a certificate it made at start, which no
// client can verify without being given it, so sending plain to a server
// that offers STARTTLS is the default (go-smtp's client never starts TLS
// on its own). With Dialer.StartTLS set, STARTTLS is required: a server
// that does not offer it, or whose certificate does not verify, gets
// nothing.
package smtpsend

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Dialer says how to open an SMTP session. The zero Dialer sends plain,
// without logging in.
type Dialer struct {
	// StartTLS, when set, is the TLS configuration of a STARTTLS that
	// is then required before anything else is said (its ServerName
	// defaults to the address's host).
	StartTLS *tls.Config
	// Auth, when set, logs in (AUTH) before sending.
	Auth sasl.Client
}

// Dial opens an SMTP session with the server at addr (HOST:PORT): after
// STARTTLS and AUTH when the Dialer asks for them. ctx bounds the dial and
// the session's set-up; the caller closes the client.
func (d Dialer) Dial(ctx context.Context, addr string) (*smtp.Client, error) {
	var nd net.Dialer
	conn, err := nd.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connect to SMTP %s: %w", addr, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	c, err := d.open(conn, addr)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return c, nil
}

// open says hello on conn and does STARTTLS and AUTH when asked to.
func (d Dialer) open(conn net.Conn, addr string) (*smtp.Client, error) {
	if d.StartTLS == nil {
		c := smtp.NewClient(conn)
		return c, d.login(c, addr)
	}
	cfg := d.StartTLS
	if cfg.ServerName == "" {
		host, _, _ := net.SplitHostPort(addr)
		cfg = cfg.Clone()
		cfg.ServerName = host
	}
	c, err := smtp.NewClientStartTLS(conn, cfg)
	if err != nil {
		return nil, fmt.Errorf("STARTTLS with SMTP %s: %w", addr, err)
	}
	return c, d.login(c, addr)
}

// login authenticates when the Dialer has credentials.
func (d Dialer) login(c *smtp.Client, addr string) error {
	if d.Auth == nil {
		return nil
	}
	if err := c.Auth(d.Auth); err != nil {
		return fmt.Errorf("log in to SMTP %s: %w", addr, err)
	}
	return nil
}

// Send delivers msg (an RFC 5322 message) from the envelope sender from to
// the recipients to, on a session of its own. A refusal by the server is
// a *smtp.SMTPError in the chain (see Code).
func (d Dialer) Send(ctx context.Context, addr, from string, to []string, msg []byte) error {
	c, err := d.Dial(ctx, addr)
	if err != nil {
		return err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	if err := SendOn(c, from, to, msg); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("send via SMTP %s: %w", addr, err)
	}
	if err := c.Quit(); err != nil && ctx.Err() != nil {
		return fmt.Errorf("send via SMTP %s: %w", addr, ctx.Err())
	}
	return nil
}

// Send delivers msg in plain text, without logging in: Dialer{}.Send.
func Send(ctx context.Context, addr, from string, to []string, msg []byte) error {
	return Dialer{}.Send(ctx, addr, from, to, msg)
}

// SendOn sends one message on an open session; after a refused recipient
// the transaction is reset, so the session can send the next one.
func SendOn(c *smtp.Client, from string, to []string, msg []byte) error {
	if err := c.Mail(from, nil); err != nil {
		return err
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			_ = c.Reset()
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

// Code is the SMTP reply code of a server's refusal in err's chain, 0 when
// there is none.
func Code(err error) int {
	var refused *smtp.SMTPError
	if errors.As(err, &refused) {
		return refused.Code
	}
	return 0
}
