package smtpd

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Connection fairness. A connection holds a place only while it makes
// progress: at connecting, at each accepted RCPT and while it is busy
// (receiving DATA, checking a login). NOOP, RSET, EHLO, a refused command
// or nothing at all are not progress: a connection that makes none for
// Settings.NoProgressTimeout is answered 421 and closed, whatever it
// sends meanwhile (the idle timeout only closes one that sends nothing).
// At a cap, a new connection takes the place of the one that has made no
// progress for longest, if that is at least evictAge (at the per-IP cap,
// one of its address's): the connections of a real sender keep their
// places, idle ones go first.

// evictAge is how long a connection must have made no progress to be
// closed for a new one: a quarter of the no-progress timeout.
func evictAge(noProgress time.Duration) time.Duration { return noProgress / 4 }

// trackedConn is an admitted connection: counted until closed, with the
// time of its last progress.
type trackedConn struct {
	net.Conn
	g        *smtpGuard
	ip       string
	counted  atomic.Bool  // the guard counts it: whoever clears it uncounts it
	progress atomic.Int64 // the last progress, in Unix nanoseconds
	busy     atomic.Int32 // > 0 while busy: progress all along
	closed   atomic.Bool

	tmu   sync.Mutex
	timer *time.Timer // checks for progress; nil without a timeout

	wmu sync.Mutex  // serialises writes, with closeWith's
	tls atomic.Bool // the connection speaks TLS: no 421 can be written in plaintext
}

func newTrackedConn(c net.Conn, g *smtpGuard, ip string) *trackedConn {
	tc := &trackedConn{Conn: c, g: g, ip: ip}
	tc.counted.Store(true)
	tc.progress.Store(time.Now().UnixNano())
	if g.noProgress > 0 {
		tc.tmu.Lock()
		tc.timer = time.AfterFunc(g.noProgress, tc.check)
		tc.tmu.Unlock()
	}
	return tc
}

// progressed marks progress now (nothing on a nil connection).
func (tc *trackedConn) progressed() {
	if tc != nil {
		tc.progress.Store(time.Now().UnixNano())
	}
}

// begin marks the connection busy until the returned function is
// called; progress says whether what it was busy with is progress. A nil
// connection (not admitted by a limitListener, in tests) is never busy.
func (tc *trackedConn) begin(progress bool) (end func()) {
	if tc == nil {
		return func() {}
	}
	tc.busy.Add(1)
	return func() {
		if progress {
			tc.progressed()
		}
		tc.busy.Add(-1)
	}
}

// idleFor is how long the connection has made no progress (0 while busy).
func (tc *trackedConn) idleFor(now time.Time) time.Duration {
	if tc.busy.Load() > 0 {
		return 0
	}
	return now.Sub(time.Unix(0, tc.progress.Load()))
}

// check closes the connection when it has made no progress for the
// timeout, else checks again when it would have.
func (tc *trackedConn) check() {
	idle := tc.idleFor(time.Now())
	if idle < tc.g.noProgress {
		tc.tmu.Lock()
		defer tc.tmu.Unlock()
		if !tc.closed.Load() {
			tc.timer.Reset(tc.g.noProgress - idle)
		}
		return
	}
	tc.closeWith("4.4.2", fmt.Sprintf("no mail delivered within %s", tc.g.noProgress))
}

// idlest is the admitted connection of ip ("" any) that has made no
// progress for longest, at least evictAge, or nil (g.mu held); none
// without a no-progress timeout.
func (g *smtpGuard) idlest(ip string) *trackedConn {
	if g.noProgress <= 0 {
		return nil
	}
	now := time.Now()
	var victim *trackedConn
	longest := evictAge(g.noProgress)
	for tc := range g.conns {
		if ip != "" && tc.ip != ip {
			continue
		}
		if idle := tc.idleFor(now); idle >= longest {
			victim, longest = tc, idle
		}
	}
	return victim
}

// Write implements net.Conn; a TLS record (a handshake's first byte, 0x16)
// marks the connection as speaking TLS.
func (tc *trackedConn) Write(p []byte) (int, error) {
	tc.wmu.Lock()
	defer tc.wmu.Unlock()
	if len(p) > 0 && p[0] == 0x16 {
		tc.tls.Store(true)
	}
	return tc.Conn.Write(p)
}

// closeWith answers 421 with the enhanced code and text (in plaintext
// only) and closes the connection.
func (tc *trackedConn) closeWith(enhanced, text string) {
	if !tc.tls.Load() {
		tc.wmu.Lock()
		_ = tc.Conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
		_, _ = fmt.Fprintf(tc.Conn, "421 %s %s %s\r\n", enhanced, tc.g.hostname, text)
		tc.wmu.Unlock()
	}
	_ = tc.Close()
}

// Close implements net.Conn.
func (tc *trackedConn) Close() error {
	tc.tmu.Lock()
	tc.closed.Store(true)
	if tc.timer != nil {
		tc.timer.Stop()
	}
	tc.tmu.Unlock()
	if tc.counted.CompareAndSwap(true, false) {
		tc.g.leave(tc)
	}
	return tc.Conn.Close()
}
