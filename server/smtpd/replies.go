package smtpd

import (
	"bytes"
	"fmt"
	"net"
	"strconv"
	"sync"
)

// fixReply corrects two of go-smtp's plaintext reply lines, or returns nil:
//   - EHLO's SIZE line carries the size limit, and when it is the last
//     line, a LIMITS RCPTMAX line (RFC 9422) follows it (go-smtp is given
//     neither limit, see New);
//   - a malformed base64 AUTH response is answered 501, as RFC 4954 asks,
//     not 454 (the session goes on either way).
//
// After STARTTLS the lines are TLS records and pass unchanged: EHLO then
// offers SIZE without a number and no LIMITS.
func fixReply(line []byte, maxMessageBytes int64) []byte {
	switch {
	case len(line) == len("250-SIZE\r\n") && bytes.HasSuffix(line, []byte("SIZE\r\n")) && bytes.HasPrefix(line, []byte("250")):
		size := "SIZE " + strconv.FormatInt(maxMessageBytes, 10) + "\r\n"
		if line[3] == ' ' {
			return fmt.Appendf(nil, "250-%s250 LIMITS RCPTMAX=%d\r\n", size, smtpMaxRecipients)
		}
		return []byte("250-" + size)
	case bytes.Equal(line, []byte("454 4.7.0 Invalid base64 data\r\n")):
		return []byte("501 5.5.2 Invalid base64 data\r\n")
	}
	return nil
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
	closing         bool // close once the next reply is written
}

// closeAfterReply closes the connection once the next whole reply is
// written.
func (c *replyConn) closeAfterReply() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closing = true
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

// write sends or holds one reply line (c.mu held), and closes the
// connection after a whole reply when asked to (see closeAfterReply).
func (c *replyConn) write(p []byte) (int, error) {
	n, err := c.writeLine(p)
	if c.closing && !isContinuationLine(p) {
		_ = c.Conn.Close()
	}
	return n, err
}

// writeLine sends or holds one reply line (c.mu held).
func (c *replyConn) writeLine(p []byte) (int, error) {
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
