package server

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// SMTP limits beyond the message size and those of Config.
const (
	smtpMaxRecipients   = 100
	smtpMaxLineLength   = 2000 // twice RFC 5321's limit, as go-smtp suggests
	smtpMaxHeaderBytes  = 1 << 20
	smtpMaxHeaderFields = 2000
	smtpWriteTimeout    = time.Minute
)

// newSMTPServer configures go-smtp for the sandbox. go-smtp is given no
// message size and no recipient limit: the session checks MAIL's SIZE,
// reads DATA itself (readMessage) and counts RCPTs (Rcpt), so that every
// refusal is recorded; replyConn puts the limits in EHLO's SIZE and LIMITS
// lines.
func (s *Server) newSMTPServer() *smtp.Server {
	srv := smtp.NewServer(smtp.BackendFunc(s.newSMTPSession))
	srv.Domain = s.cfg.Hostname
	srv.MaxLineLength = smtpMaxLineLength
	srv.ReadTimeout = s.cfg.SMTPIdleTimeout
	srv.WriteTimeout = smtpWriteTimeout
	srv.EnableSMTPUTF8 = true
	srv.AllowInsecureAuth = true // a sandbox: AUTH on plaintext too
	srv.TLSConfig = s.cfg.TLSConfig
	srv.ErrorLog = slogPrintf{s.smtp.drops}
	return srv
}

// smtpSession is one SMTP connection's transaction state.
type smtpSession struct {
	s            *Server
	conn         *smtp.Conn
	remoteIP     net.IP
	authUser     string // the AUTH user name, "" without AUTH
	mailFrom     string
	declaredSize int64 // MAIL's SIZE parameter, 0 when not given
	rcptCount    int   // RCPTs accepted in this transaction, as go-smtp counts them
	targets      []target
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
			rcpt = append(rcpt, tg.rcpts...)
		}
	}
	ip := ""
	if ss.remoteIP != nil {
		ip = ss.remoteIP.String()
	}
	ss.s.smtp.refusals.add(Refusal{ClientIP: ip, MailFrom: ss.mailFrom, Rcpt: rcpt, Code: code, Reason: reason})
}

// errAuthRequired answers MAIL without AUTH when an auth file is set.
var errAuthRequired = &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}

// Mail implements smtp.Session: a declared SIZE over the limit is refused
// at once.
func (ss *smtpSession) Mail(from string, opts *smtp.MailOptions) error {
	ss.mailFrom = from
	ss.targets = ss.targets[:0]
	ss.declaredSize = 0
	ss.rcptCount = 0
	if ss.s.smtp.users != nil && ss.authUser == "" {
		return ss.refuse(errAuthRequired)
	}
	if opts != nil && opts.Size > 0 {
		if opts.Size > ss.s.cfg.MaxMessageBytes {
			return ss.refuse(smtpError(552, smtp.EnhancedCode{5, 3, 4}, "the declared size %d exceeds the size limit of %d bytes", opts.Size, ss.s.cfg.MaxMessageBytes))
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
	in, ok := ss.s.reg.byAddr(address, ss.s.cfg.Now())
	if !ok {
		in, ok = ss.s.catchAllInbox()
	}
	if !ok {
		if domain := address[at+1:]; !ss.s.servesDomain(domain) {
			return ss.refuse(smtpError(550, smtp.EnhancedCode{5, 1, 2}, "domain %s is not served here (served: %s)", domain, strings.Join(ss.s.cfg.Domains, ", ")), address)
		}
		return ss.refuse(smtpError(550, smtp.EnhancedCode{5, 1, 1}, "no inbox %s: it was never created, has expired or was deleted", address), address)
	}
	for i := range ss.targets {
		if ss.targets[i].inbox == in {
			if !slices.Contains(ss.targets[i].rcpts, address) {
				ss.targets[i].rcpts = append(ss.targets[i].rcpts, address)
			}
			ss.rcptCount++
			return nil
		}
	}
	ss.targets = append(ss.targets, target{inbox: in, rcpts: []string{address}})
	ss.rcptCount++
	return nil
}

// Data implements smtp.Session: the message is stored once per recipient
// inbox (the catch-all inbox once for all the recipients it takes) before
// 250 is answered.
func (ss *smtpSession) Data(r io.Reader) error {
	raw, release, err := ss.readMessage(r)
	defer release()
	if err != nil {
		return err
	}
	if err := checkHeaderLimits(raw); err != nil {
		return ss.refuse(err)
	}
	if !ss.s.beginWork() {
		return ss.refuse(smtpError(421, smtp.EnhancedCode{4, 3, 2}, "server is shutting down, try again later"))
	}
	defer ss.s.endWork()
	protocol := protocolESMTP
	if _, isTLS := ss.conn.TLSConnectionState(); isTLS {
		protocol = protocolESMTPS
	}
	if ss.authUser != "" {
		protocol += "A" // RFC 3848: ESMTPA, ESMTPSA
	}
	_, err = ss.s.deliver(ss.s.baseCtx, delivery{
		raw:      raw,
		remoteIP: ss.remoteIP,
		helo:     ss.conn.Hostname(),
		mailFrom: ss.mailFrom,
		authUser: ss.authUser,
		protocol: protocol,
		targets:  ss.targets,
	})
	if err != nil {
		ss.s.log.Error("storing a received message failed", "error", err)
		return ss.refuse(smtpError(451, smtp.EnhancedCode{4, 3, 0}, "storing the message failed, try again later"))
	}
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

// serveSMTP serves SMTP on l until the server stops, within the
// connection caps (see limitListener). Every reply leaves in one write
// (see replyConn).
func (s *Server) serveSMTP(l net.Listener) error {
	done := make(chan struct{})
	defer close(done)
	go s.smtp.drops.run(done)
	return s.smtpServer.Serve(replyListener{Listener: limitListener{Listener: l, s: s}, maxMessageBytes: s.cfg.MaxMessageBytes})
}

// replyListener hands go-smtp connections wrapped in replyConn.
type replyListener struct {
	net.Listener
	maxMessageBytes int64
}

// Accept implements net.Listener.
func (l replyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &replyConn{Conn: c, maxMessageBytes: l.maxMessageBytes}, nil
}

// replyConn sends each SMTP reply in one write. go-smtp flushes every line
// of a multi-line reply (EHLO's) on its own, and clients that read one
// reply per read (the official Node SDK's test helper does) would see half
// a reply. Continuation lines ("250-...") are held until the reply's last
// line, then written with it. Only plaintext replies can be recognised:
// after STARTTLS the lines leave as TLS records, one per line. Two of
// go-smtp's replies are also corrected (see fixReply).
type replyConn struct {
	net.Conn
	maxMessageBytes int64
	mu              sync.Mutex
	pending         []byte
}

// Write implements net.Conn.
func (c *replyConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if fixed := fixReply(p, c.maxMessageBytes); fixed != nil {
		if _, err := c.write(fixed); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.write(p)
}

// write sends or holds one reply line (c.mu held).
func (c *replyConn) write(p []byte) (int, error) {
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
