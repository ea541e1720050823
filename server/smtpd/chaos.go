package smtpd

import (
	"crypto/tls"
	"errors"
	"net"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/model"
	"sandview/server/core"
)

// errDropped ends a session whose connection chaos dropped: there is no
// one left to answer.
var errDropped = errors.New("chaos dropped the connection")

// applyChaos evaluates the chaos of the message's primary inbox, the
// first RCPT's (chaos.md, section 4), after the end-of-data checks and
// before storage. done: the message is answered with err (a refusal, a
// drop, or nil for a blackholed message). Otherwise delay is how long the
// success reply waits once the message is stored.
func (ss *smtpSession) applyChaos(a core.Arrival) (done bool, delay time.Duration, err error) {
	if len(ss.targets) == 0 {
		return false, 0, nil
	}
	out, err := ss.s.core.Chaos().At(ss.s.core.Context(), ss.targets[0].Inbox, ss.remoteIP, ss.mailFrom)
	if err != nil {
		ss.s.opts.Logger.Error("evaluating chaos failed; the message is delivered", "error", err)
		return false, 0, nil
	}
	switch out.Action.Type {
	case model.ChaosTypeConnectionDrop:
		ss.drop(out.Action.Graceful)
		return true, 0, errDropped
	case model.ChaosTypeGreylist, model.ChaosTypeRandomError:
		if out.Close {
			ss.closeAfterReply()
		}
		r := out.Reply
		return true, 0, ss.refuse(smtpError(r.Code, smtp.EnhancedCode{r.Enhanced[0], r.Enhanced[1], r.Enhanced[2]}, "%s", r.Text))
	case model.ChaosTypeBlackhole:
		if out.Action.Webhooks {
			a.Blackhole = true
			if _, err := ss.s.core.Arrive(ss.s.core.Context(), a); err != nil {
				ss.s.opts.Logger.Error("the webhooks of a blackholed message failed", "error", err)
			}
		}
		return true, 0, nil
	}
	return false, out.Delay, nil
}

// drop closes the connection without a reply: an orderly close (FIN), or
// an abortive one (linger 0: RST).
func (ss *smtpSession) drop(graceful bool) {
	conn := ss.conn.Conn()
	if !graceful {
		if tcp := tcpConn(conn); tcp != nil {
			_ = tcp.SetLinger(0)
		}
	}
	_ = conn.Close()
}

// tcpConn is the TCP connection under c's wrappers (nil: none).
func tcpConn(c net.Conn) *net.TCPConn {
	for {
		switch v := c.(type) {
		case *net.TCPConn:
			return v
		case *tls.Conn:
			c = v.NetConn()
		case *replyConn:
			c = v.Conn
		case *trackedConn:
			c = v.Conn
		default:
			return nil
		}
	}
}

// chaosWait holds the success reply back for d, or until the server
// stops.
func (ss *smtpSession) chaosWait(d time.Duration) {
	if d <= 0 {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ss.s.core.Context().Done():
	}
}
