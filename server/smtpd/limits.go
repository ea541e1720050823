package smtpd

import (
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"sandview/server/core"
)

// smtpGuard holds what the SMTP connections share: the connection counts,
// the memory budget of messages being received, the refusal log, the
// summary of dropped connections and the credentials.
type smtpGuard struct {
	maxConns, maxPerIP int
	budget             smtpBudget
	refusals           *refusalLog
	drops              *dropLog
	users              *credentials // nil: any credentials, none required
	auth               *authGuard

	noProgress time.Duration // see trackedConn
	hostname   string

	mu    sync.Mutex
	total int
	perIP map[string]int
	conns map[*trackedConn]struct{}
}

func newSMTPGuard(set Settings, o core.Options) (*smtpGuard, error) {
	users, err := loadCredentials(set.AuthFile)
	if err != nil {
		return nil, err
	}
	return &smtpGuard{
		maxConns: set.MaxConns, maxPerIP: set.MaxConnsPerIP,
		budget:   newSMTPBudget(set.BufferBytes, set.MaxMessageBytes),
		refusals: newRefusalLog(o.Now),
		drops:    &dropLog{log: o.Logger.With("component", "smtp"), interval: dropLogInterval, now: o.Now},
		users:    users,
		auth:     newAuthGuard(set, o),
		perIP:    make(map[string]int),
		conns:    make(map[*trackedConn]struct{}),

		noProgress: set.NoProgressTimeout, hostname: o.Hostname,
	}, nil
}

// admit counts a new connection from ip and returns it tracked, or says
// which cap it is over. At a cap the connection that has made no progress
// for longest, if that is at least evictAge, is closed to make room: at
// the per-IP cap one of that address's, at the total cap any (see
// trackedConn).
func (g *smtpGuard) admit(c net.Conn, ip string) (tc *trackedConn, over string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.perIP[ip] >= g.maxPerIP:
		if !g.evict(ip) {
			return nil, fmt.Sprintf("too many connections from %s (%d)", ip, g.maxPerIP)
		}
	case g.total >= g.maxConns:
		if !g.evict("") {
			return nil, fmt.Sprintf("too many connections (%d)", g.maxConns)
		}
	}
	g.total++
	g.perIP[ip]++
	tc = newTrackedConn(c, g, ip)
	g.conns[tc] = struct{}{}
	return tc, ""
}

// evict closes the connection of ip ("" any) that has made no progress
// for longest, at least evictAge, and reports whether there was one (g.mu
// held).
func (g *smtpGuard) evict(ip string) bool {
	victim := g.idlest(ip)
	if victim == nil {
		return false
	}
	// A victim closing meanwhile waits for g.mu to uncount itself: its
	// place is as good as free either way.
	if victim.counted.CompareAndSwap(true, false) {
		g.uncount(victim)
	}
	go victim.closeWith("4.4.2", "closing a connection that made no progress, to admit another")
	return true
}

// leave uncounts a connection admit counted.
func (g *smtpGuard) leave(tc *trackedConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.uncount(tc)
}

// uncount uncounts a connection (g.mu held).
func (g *smtpGuard) uncount(tc *trackedConn) {
	delete(g.conns, tc)
	g.total--
	if g.perIP[tc.ip]--; g.perIP[tc.ip] <= 0 {
		delete(g.perIP, tc.ip)
	}
}

// limitListener refuses connections beyond the guard's caps with 421.
type limitListener struct {
	net.Listener
	s *Server
}

// Accept implements net.Listener: it returns the next admitted
// connection; refused ones are answered and closed in the background.
func (l limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := hostOf(c.RemoteAddr())
		tc, over := l.s.guard.admit(c, ip)
		if over == "" {
			return tc, nil
		}
		l.s.guard.drops.refused(ip, over)
		l.s.guard.refusals.add(Refusal{ClientIP: ip, Code: 421, Reason: over})
		go refuseConn(c, l.s.opts.Hostname, over)
	}
}

// refuseConn answers 421 and closes; a client that does not read gets a
// short write deadline.
func refuseConn(c net.Conn, host, why string) {
	_ = c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	_, _ = fmt.Fprintf(c, "421 4.7.0 %s %s, try again later\r\n", host, why)
	_ = c.Close()
}

// hostOf is the IP of a connection's address.
func hostOf(addr net.Addr) string {
	if a, ok := addr.(*net.TCPAddr); ok {
		return a.IP.String()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

// dropLogInterval is how often refused connections are summed up in the
// log.
const dropLogInterval = 10 * time.Second

// dropLog logs refused connections and go-smtp's connection errors
// without a line for each: the first after a quiet interval is logged at
// once, the others are counted and summed up in one line per interval
// (see run).
type dropLog struct {
	log      *slog.Logger
	interval time.Duration
	now      func() time.Time

	mu       sync.Mutex
	lastLine time.Time
	nRefused int
	errors   int
	byIP     map[string]int
}

// refused records a connection refused for why.
func (d *dropLog) refused(ip, why string) {
	d.note(func() {
		d.log.Warn("refused an SMTP connection; more are summed up every "+d.interval.String(), "client", ip, "reason", why)
	},
		func() {
			d.nRefused++
			if d.byIP == nil {
				d.byIP = make(map[string]int)
			}
			if len(d.byIP) < 1000 || d.byIP[ip] > 0 {
				d.byIP[ip]++
			}
		})
}

// connError records an error of go-smtp's (a connection that failed).
func (d *dropLog) connError(text string) {
	d.note(func() { d.log.Warn(text) }, func() { d.errors++ })
}

// note logs at once when the last line is an interval old and nothing is
// pending, else counts.
func (d *dropLog) note(logNow, count func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	if d.nRefused == 0 && d.errors == 0 && now.Sub(d.lastLine) >= d.interval {
		d.lastLine = now
		logNow()
		return
	}
	count()
}

// flush logs the summary of what was counted, if anything.
func (d *dropLog) flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nRefused == 0 && d.errors == 0 {
		return
	}
	top, topN := "", 0
	for ip, n := range d.byIP {
		if n > topN || n == topN && ip < top {
			top, topN = ip, n
		}
	}
	args := []any{"refused", d.nRefused, "errors", d.errors}
	if topN > 0 {
		args = append(args, "mostFrom", top, "fromIt", topN)
	}
	d.log.Warn(fmt.Sprintf("SMTP connections refused or failed in the last %s", d.interval), args...)
	d.nRefused, d.errors, d.byIP = 0, 0, nil
	d.lastLine = d.now()
}

// run sums up every interval until done is closed, then once more.
func (d *dropLog) run(done <-chan struct{}) {
	t := time.NewTicker(d.interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			d.flush()
		case <-done:
			d.flush()
			return
		}
	}
}

// slogPrintf adapts the drop log to go-smtp's Logger.
type slogPrintf struct{ d *dropLog }

func (p slogPrintf) Printf(format string, v ...any) {
	p.d.connError(strings.TrimSpace(fmt.Sprintf(format, v...)))
}
func (p slogPrintf) Println(v ...any) { p.d.connError(strings.TrimSpace(fmt.Sprint(v...))) }
