package smtpd

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"sandview/server/core"

	"github.com/emersion/go-smtp"
)

// SMTP limits beyond those of Settings.
const (
	smtpMaxRecipients   = 100
	smtpMaxLineLength   = 2000 // twice RFC 5321's limit, as go-smtp suggests
	smtpMaxHeaderBytes  = 1 << 20
	smtpMaxHeaderFields = 2000
	smtpWriteTimeout    = time.Minute
)

// smtpSession is one SMTP connection's transaction state.
type smtpSession struct {
	s            *Server
	conn         *smtp.Conn
	tracked      *trackedConn // nil when not admitted by a limitListener (tests)
	remoteIP     net.IP
	authUser     string // the AUTH user name, "" without AUTH
	mailFrom     string
	declaredSize int64 // MAIL's SIZE parameter, 0 when not given
	rcptCount    int   // RCPTs accepted in this transaction, as go-smtp counts them
	targets      []core.Target
}

func (s *Server) newSession(c *smtp.Conn) (smtp.Session, error) {
	var ip net.IP
	if addr, ok := c.Conn().RemoteAddr().(*net.TCPAddr); ok {
		ip = addr.IP
	}
	ss := &smtpSession{s: s, conn: c, remoteIP: ip}
	if rc, ok := plainConn(c).(*replyConn); ok {
		ss.tracked, _ = rc.Conn.(*trackedConn)
	}
	return ss, nil
}

// plainConn is the connection under c's TLS layer, or c's connection
// when it speaks no TLS: go-smtp makes a new session after STARTTLS, on
// the TLS connection, and that session's progress is the same
// connection's.
func plainConn(c *smtp.Conn) net.Conn {
	conn := c.Conn()
	if tc, ok := conn.(*tls.Conn); ok {
		return tc.NetConn()
	}
	return conn
}

func smtpError(code int, enhanced smtp.EnhancedCode, format string, args ...any) *smtp.SMTPError {
	return &smtp.SMTPError{Code: code, EnhancedCode: enhanced, Message: fmt.Sprintf(format, args...)}
}

// refuse records a refusal (see Refusal) and returns it; rcpt defaults to
// the recipients accepted so far.
func (ss *smtpSession) refuse(err *smtp.SMTPError, rcpt ...string) error {
	ss.record(err.Code, err.Message, rcpt)
	return err
}

// record adds a refusal with the session's envelope to the refusal log.
func (ss *smtpSession) record(code int, reason string, rcpt []string) {
	if rcpt == nil {
		for _, tg := range ss.targets {
			rcpt = append(rcpt, tg.Rcpts...)
		}
	}
	ss.s.guard.refusals.add(Refusal{ClientIP: ss.ip(), MailFrom: ss.mailFrom, Rcpt: rcpt, Code: code, Reason: reason})
	if code == errAuthRequired.Code && reason == errAuthRequired.Message {
		// An operator of --smtp-auth-file sees mail refused for want of
		// AUTH; failed logins are logged by the auth guard.
		ss.s.opts.Logger.Info("smtp: authentication refused", "event", "smtp-auth-refused", "code", code, "client", ss.ip(), "reason", reason)
	}
}

// ip is the client's address as text ("" unknown).
func (ss *smtpSession) ip() string {
	if ss.remoteIP == nil {
		return ""
	}
	return ss.remoteIP.String()
}

// closeAfterReply closes the connection once the next reply is written
// (after a 421, as RFC 5321 says).
func (ss *smtpSession) closeAfterReply() {
	if rc, ok := plainConn(ss.conn).(*replyConn); ok {
		rc.closeAfterReply()
	}
}

// errAuthRequired answers MAIL without AUTH when an auth file is set.
var errAuthRequired = &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}

// errTLSRequired answers MAIL and AUTH before STARTTLS when TLS is
// required (RFC 3207's reply).
var errTLSRequired = &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Must issue a STARTTLS command first"}

// needsTLS reports whether TLS is required and not yet started.
func (ss *smtpSession) needsTLS() bool {
	if !ss.s.set.RequireTLS {
		return false
	}
	_, isTLS := ss.conn.TLSConnectionState()
	return !isTLS
}

// Mail implements smtp.Session: a declared SIZE over the limit is refused
// at once.
func (ss *smtpSession) Mail(from string, opts *smtp.MailOptions) error {
	ss.mailFrom = from
	ss.targets = ss.targets[:0]
	ss.declaredSize = 0
	ss.rcptCount = 0
	if ss.needsTLS() {
		return ss.refuse(errTLSRequired)
	}
	if ss.s.guard.users != nil && ss.authUser == "" {
		return ss.refuse(errAuthRequired)
	}
	if opts != nil && opts.Size > 0 {
		if opts.Size > ss.s.set.MaxMessageBytes {
			return ss.refuse(smtpError(552, smtp.EnhancedCode{5, 3, 4}, "the declared size %d exceeds the size limit of %d bytes", opts.Size, ss.s.set.MaxMessageBytes))
		}
		ss.declaredSize = opts.Size
	}
	return nil
}

// Rcpt implements smtp.Session: live inboxes in served domains, and with a
// catch-all inbox any other address, in any domain, for the catch-all.
// More than smtpMaxRecipients RCPTs are refused with go-smtp's own reply.
func (ss *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if ss.rcptCount >= smtpMaxRecipients {
		return ss.refuse(smtpError(452, smtp.EnhancedCode{4, 5, 3}, "Maximum limit of %d recipients reached", smtpMaxRecipients), to)
	}
	address := strings.ToLower(strings.TrimSpace(to))
	at := strings.LastIndexByte(address, '@')
	if at <= 0 || at == len(address)-1 {
		return ss.refuse(smtpError(501, smtp.EnhancedCode{5, 1, 3}, "%q is not a valid recipient address", to), to)
	}
	inboxes := ss.s.core.Inboxes()
	in, ok := inboxes.ForRecipient(address)
	if !ok {
		if domain := address[at+1:]; !inboxes.ServesDomain(domain) {
			return ss.refuse(smtpError(550, smtp.EnhancedCode{5, 1, 2}, "domain %s is not served here (served: %s)", domain, strings.Join(ss.s.opts.Domains, ", ")), address)
		}
		return ss.refuse(smtpError(550, smtp.EnhancedCode{5, 1, 1}, "no inbox %s: it was never created, has expired or was deleted", address), address)
	}
	for i := range ss.targets {
		if ss.targets[i].Inbox == in {
			if !slices.Contains(ss.targets[i].Rcpts, address) {
				ss.targets[i].Rcpts = append(ss.targets[i].Rcpts, address)
			}
			ss.rcptCount++
			ss.tracked.progressed()
			return nil
		}
	}
	ss.targets = append(ss.targets, core.Target{Inbox: in, Rcpts: []string{address}})
	ss.rcptCount++
	ss.tracked.progressed()
	return nil
}

// Data implements smtp.Session: the message is stored once per recipient
// inbox (the catch-all inbox once for all the recipients it takes) before
// 250 is answered.
func (ss *smtpSession) Data(r io.Reader) error {
	defer ss.tracked.begin(true)()
	raw, release, err := ss.readMessage(r)
	defer release()
	if err != nil {
		return err
	}
	if err := checkHeaderLimits(raw); err != nil {
		return ss.refuse(err)
	}
	protocol := core.ProtocolESMTP
	if _, isTLS := ss.conn.TLSConnectionState(); isTLS {
		protocol = core.ProtocolESMTPS
	}
	if ss.authUser != "" {
		protocol += "A" // RFC 3848: ESMTPA, ESMTPSA
	}
	arrival := core.Arrival{
		Raw:      raw,
		RemoteIP: ss.remoteIP,
		Helo:     ss.conn.Hostname(),
		MailFrom: ss.mailFrom,
		AuthUser: ss.authUser,
		Protocol: protocol,
		Targets:  ss.targets,
	}
	done, delay, err := ss.applyChaos(arrival)
	if done {
		return err
	}
	_, err = ss.s.core.Arrive(ss.s.core.Context(), arrival)
	if errors.Is(err, core.ErrStopping) {
		return ss.refuse(smtpError(421, smtp.EnhancedCode{4, 3, 2}, "server is shutting down, try again later"))
	}
	if err != nil {
		ss.s.opts.Logger.Error("storing a received message failed", "error", err)
		return ss.refuse(smtpError(451, smtp.EnhancedCode{4, 3, 0}, "storing the message failed, try again later"))
	}
	ss.chaosWait(delay) // stored and announced first, then the reply waits
	return nil
}

// checkHeaderLimits refuses a header section larger than the limits.
func checkHeaderLimits(raw []byte) *smtp.SMTPError {
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
	ss.declaredSize = 0
	ss.rcptCount = 0
	ss.targets = ss.targets[:0]
}

// Logout implements smtp.Session.
func (ss *smtpSession) Logout() error { return nil }
