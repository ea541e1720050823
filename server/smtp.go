package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// SMTP limits beyond the message size.
const (
	smtpMaxRecipients   = 100
	smtpMaxLineLength   = 2000 // twice RFC 5321's limit, as go-smtp suggests
	smtpMaxHeaderBytes  = 1 << 20
	smtpMaxHeaderFields = 2000
	smtpReadTimeout     = 5 * time.Minute
	smtpWriteTimeout    = time.Minute
)

// newSMTPServer configures go-smtp for the sandbox.
func (s *Server) newSMTPServer() *smtp.Server {
	srv := smtp.NewServer(smtp.BackendFunc(s.newSMTPSession))
	srv.Domain = s.cfg.Hostname
	srv.MaxMessageBytes = s.cfg.MaxMessageBytes
	srv.MaxRecipients = smtpMaxRecipients
	srv.MaxLineLength = smtpMaxLineLength
	srv.ReadTimeout = smtpReadTimeout
	srv.WriteTimeout = smtpWriteTimeout
	srv.EnableSMTPUTF8 = true
	srv.TLSConfig = s.cfg.TLSConfig
	srv.ErrorLog = slogPrintf{s.log.With("component", "smtp")}
	return srv
}

// slogPrintf adapts a slog.Logger to go-smtp's Logger.
type slogPrintf struct{ l *slog.Logger }

func (p slogPrintf) Printf(format string, v ...any) { p.l.Warn(fmt.Sprintf(format, v...)) }
func (p slogPrintf) Println(v ...any)               { p.l.Warn(fmt.Sprint(v...)) }

// smtpSession is one SMTP connection's transaction state.
type smtpSession struct {
	s        *Server
	conn     *smtp.Conn
	remoteIP net.IP
	mailFrom string
	targets  []target
}

func (s *Server) newSMTPSession(c *smtp.Conn) (smtp.Session, error) {
	var ip net.IP
	if addr, ok := c.Conn().RemoteAddr().(*net.TCPAddr); ok {
		ip = addr.IP
	}
	return &smtpSession{s: s, conn: c, remoteIP: ip}, nil
}

func smtpError(code int, enhanced smtp.EnhancedCode, format string, args ...any) *smtp.SMTPError {
	return &smtp.SMTPError{Code: code, EnhancedCode: enhanced, Message: fmt.Sprintf(format, args...)}
}

// Mail implements smtp.Session.
func (ss *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	ss.mailFrom = from
	ss.targets = ss.targets[:0]
	return nil
}

// Rcpt implements smtp.Session: live inboxes in served domains, and with a
// catch-all inbox any other address, in any domain, for the catch-all.
func (ss *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	address := strings.ToLower(strings.TrimSpace(to))
	at := strings.LastIndexByte(address, '@')
	if at <= 0 || at == len(address)-1 {
		return smtpError(501, smtp.EnhancedCode{5, 1, 3}, "%q is not a valid recipient address", to)
	}
	in, ok := ss.s.reg.byAddr(address, ss.s.cfg.Now())
	if !ok {
		in, ok = ss.s.catchAllInbox()
	}
	if !ok {
		if domain := address[at+1:]; !ss.s.servesDomain(domain) {
			return smtpError(550, smtp.EnhancedCode{5, 1, 2}, "domain %s is not served here (served: %s)", domain, strings.Join(ss.s.cfg.Domains, ", "))
		}
		return smtpError(550, smtp.EnhancedCode{5, 1, 1}, "no inbox %s: it was never created, has expired or was deleted", address)
	}
	for i := range ss.targets {
		if ss.targets[i].inbox == in {
			if !slices.Contains(ss.targets[i].rcpts, address) {
				ss.targets[i].rcpts = append(ss.targets[i].rcpts, address)
			}
			return nil
		}
	}
	ss.targets = append(ss.targets, target{inbox: in, rcpts: []string{address}})
	return nil
}

// Data implements smtp.Session: the message is stored once per recipient
// inbox (the catch-all inbox once for all the recipients it takes) before
// 250 is answered.
func (ss *smtpSession) Data(r io.Reader) error {
	var buf bytes.Buffer
	buf.Grow(8 << 10)
	if _, err := buf.ReadFrom(r); err != nil {
		var smtpErr *smtp.SMTPError
		if errors.As(err, &smtpErr) {
			return smtpErr // 552 for an oversized message
		}
		if errors.Is(err, smtp.ErrTooLongLine) {
			return smtpError(500, smtp.EnhancedCode{5, 5, 6}, "a line is longer than %d bytes", smtpMaxLineLength)
		}
		return smtpError(451, smtp.EnhancedCode{4, 3, 0}, "reading the message failed: %v", err)
	}
	raw := buf.Bytes()
	if err := checkHeaderLimits(raw); err != nil {
		return err
	}
	if !ss.s.beginWork() {
		return smtpError(421, smtp.EnhancedCode{4, 3, 2}, "server is shutting down, try again later")
	}
	defer ss.s.endWork()
	protocol := protocolESMTP
	if _, isTLS := ss.conn.TLSConnectionState(); isTLS {
		protocol = protocolESMTPS
	}
	_, err := ss.s.deliver(ss.s.baseCtx, delivery{
		raw:      raw,
		remoteIP: ss.remoteIP,
		helo:     ss.conn.Hostname(),
		mailFrom: ss.mailFrom,
		protocol: protocol,
		targets:  ss.targets,
	})
	if err != nil {
		ss.s.log.Error("storing a received message failed", "error", err)
		return smtpError(451, smtp.EnhancedCode{4, 3, 0}, "storing the message failed, try again later")
	}
	return nil
}

// checkHeaderLimits refuses a header section larger than the limits.
func checkHeaderLimits(raw []byte) error {
	fields, size := 0, 0
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i+1], raw[i+1:]
		} else {
			raw = nil
		}
		size += len(line)
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 {
			break
		}
		if trimmed[0] != ' ' && trimmed[0] != '\t' {
			fields++
		}
		if size > smtpMaxHeaderBytes || fields > smtpMaxHeaderFields {
			return smtpError(552, smtp.EnhancedCode{5, 3, 4}, "header section exceeds %d bytes or %d fields", smtpMaxHeaderBytes, smtpMaxHeaderFields)
		}
	}
	return nil
}

// Reset implements smtp.Session.
func (ss *smtpSession) Reset() {
	ss.mailFrom = ""
	ss.targets = ss.targets[:0]
}

// Logout implements smtp.Session.
func (ss *smtpSession) Logout() error { return nil }

// serveSMTP serves SMTP on l until the server stops. Every reply leaves in
// one write (see replyConn).
func (s *Server) serveSMTP(l net.Listener) error {
	return s.smtpServer.Serve(replyListener{l})
}

// replyListener hands go-smtp connections wrapped in replyConn.
type replyListener struct{ net.Listener }

// Accept implements net.Listener.
func (l replyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &replyConn{Conn: c}, nil
}

// replyConn sends each SMTP reply in one write. go-smtp flushes every line
// of a multi-line reply (EHLO's) on its own, and clients that read one
// reply per read (the official Node SDK's test helper does) would see half
// a reply. Continuation lines ("250-...") are held until the reply's last
// line, then written with it. Only plaintext replies can be recognised:
// after STARTTLS the lines leave as TLS records, one per line.
type replyConn struct {
	net.Conn
	mu      sync.Mutex
	pending []byte
}

// Write implements net.Conn.
func (c *replyConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if isContinuationLine(p) {
		c.pending = append(c.pending, p...)
		return len(p), nil
	}
	if len(c.pending) == 0 {
		return c.Conn.Write(p)
	}
	c.pending = append(c.pending, p...)
	_, err := c.Conn.Write(c.pending)
	c.pending = c.pending[:0]
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// isContinuationLine reports a whole reply line that another line follows:
// three digits, '-', text, CRLF.
func isContinuationLine(p []byte) bool {
	if len(p) < 6 || p[3] != '-' || !bytes.HasSuffix(p, []byte("\r\n")) || bytes.IndexByte(p, '\n') != len(p)-1 {
		return false
	}
	for _, ch := range p[:3] {
		if ch < '0' || ch > '9' {
			return false
		}
	}
	return true
}
