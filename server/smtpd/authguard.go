package smtpd

import (
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/server/core"
)

// SMTP AUTH against guessing (with an auth file): every login costs one
// bcrypt comparison, a dummy hash's for an unknown user, so that timing
// does not tell which users exist; the comparisons run a few at a time
// (authWorkers), so that guessing cannot take every core from the API;
// failures are counted per client address and user, and per address
// alone: each failure after the first is answered later than the one
// before, and past the limits the pair, or the address, is refused with
// 421 for the lockout, right password or not. A client's failures are
// logged in one line per authLogInterval.

// Tuning of the guard.
const (
	// authWait bounds the wait for a comparison slot; then 454.
	authWait = 10 * time.Second
	// authSlowdown is the delay of a second failure, doubled for each one
	// after it up to authMaxSlowdown.
	authSlowdown    = 100 * time.Millisecond
	authMaxSlowdown = 2 * time.Second
	// authMaxEntries bounds the counted pairs and addresses; when they are
	// all live, a new one is refused as if locked.
	authMaxEntries = 100_000
	// authLogInterval is the period of one log line per client.
	authLogInterval = time.Minute
	// maxLoggedUsers bounds the user names a log line names.
	maxLoggedUsers = 5
)

// authWorkers is how many bcrypt comparisons run at once: a quarter of
// the cores, at least one.
func authWorkers() int { return max(1, runtime.GOMAXPROCS(0)/4) }

// errAuthBusy answers a login that found no comparison slot in time.
var errAuthBusy = &smtp.SMTPError{Code: 454, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "too many logins being checked, try again later"}

// authLocked answers a login whose client is locked out.
func authLocked(until time.Time) *smtp.SMTPError {
	return smtpError(421, smtp.EnhancedCode{4, 7, 0}, "too many failed logins, try again after %s", until.UTC().Format(time.RFC3339))
}

// authFailures counts failed logins within the lockout.
type authFailures struct {
	failures int
	since    time.Time // the first counted failure
	until    time.Time // locked until, zero when not locked
}

// authGuard throttles SMTP AUTH (see the comment above).
type authGuard struct {
	maxFailures, maxPerIP int
	lockout               time.Duration
	now                   func() time.Time
	slots                 chan struct{}
	log                   *slog.Logger

	mu     sync.Mutex
	pairs  map[[2]string]*authFailures // (address, user)
	ips    map[string]*authFailures
	logged map[string]*authLogEntry
}

// authLogEntry is what is pending in a client's log line.
type authLogEntry struct {
	last     time.Time // the last line's time
	failures int       // failures since, not yet logged
	users    []string
	locked   bool
}

func newAuthGuard(set Settings, o core.Options) *authGuard {
	return &authGuard{
		maxFailures: set.AuthMaxFailures, maxPerIP: set.AuthMaxFailuresPerIP, lockout: set.AuthLockout,
		now: o.Now, slots: make(chan struct{}, authWorkers()), log: o.Logger.With("component", "smtp"),
		pairs: map[[2]string]*authFailures{}, ips: map[string]*authFailures{}, logged: map[string]*authLogEntry{},
	}
}

// locked says until when ip, or ip with user, is refused (zero: not).
func (g *authGuard) locked(ip, user string) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	until := time.Time{}
	for _, f := range []*authFailures{g.ips[ip], g.pairs[[2]string{ip, user}]} {
		if f != nil && now.Before(f.until) && f.until.After(until) {
			until = f.until
		}
	}
	if until.IsZero() && g.full(now, ip, user) {
		until = now.Add(g.lockout)
	}
	return until
}

// full reports that no new entry can be counted for ip and user (g.mu
// held); expired entries are dropped first.
func (g *authGuard) full(now time.Time, ip, user string) bool {
	_, known := g.pairs[[2]string{ip, user}]
	if known || len(g.pairs)+len(g.ips) < authMaxEntries {
		return false
	}
	for k, f := range g.pairs {
		if g.expired(now, f) {
			delete(g.pairs, k)
		}
	}
	for k, f := range g.ips {
		if g.expired(now, f) {
			delete(g.ips, k)
		}
	}
	return len(g.pairs)+len(g.ips) >= authMaxEntries
}

// expired reports counted failures that no longer count.
func (g *authGuard) expired(now time.Time, f *authFailures) bool {
	if !f.until.IsZero() {
		return !now.Before(f.until)
	}
	return now.Sub(f.since) >= g.lockout
}

// compare runs cmp on a comparison slot; false when none was free within
// authWait.
func (g *authGuard) compare(cmp func() bool) (ok, ran bool) {
	t := time.NewTimer(authWait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
	case <-t.C:
		return false, false
	}
	defer func() { <-g.slots }()
	return cmp(), true
}

// succeeded forgets the failures of ip with user.
func (g *authGuard) succeeded(ip, user string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.pairs, [2]string{ip, user})
}

// failed counts a failure of ip with user, logs it and returns how long to
// wait before answering.
func (g *authGuard) failed(ip, user string) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	pair := count(g, now, g.pairs, [2]string{ip, user}, g.maxFailures)
	byIP := count(g, now, g.ips, ip, g.maxPerIP)
	g.note(now, ip, user, !pair.until.IsZero() || !byIP.until.IsZero())
	if pair.failures < 2 {
		return 0
	}
	return min(authSlowdown<<min(pair.failures-2, 16), authMaxSlowdown)
}

// count adds a failure to m[k], locking it at limit (g.mu held).
func count[K comparable](g *authGuard, now time.Time, m map[K]*authFailures, k K, limit int) *authFailures {
	f := m[k]
	if f == nil || g.expired(now, f) {
		f = &authFailures{since: now}
		m[k] = f
	}
	f.failures++
	if f.failures >= limit && f.until.IsZero() {
		f.until = now.Add(g.lockout)
	}
	return f
}

// note logs a failure at once when the client's last line is a period
// old and nothing is pending, else counts it for flush (g.mu held).
func (g *authGuard) note(now time.Time, ip, user string, locked bool) {
	if len(user) > 64 {
		user = user[:64] + "…"
	}
	e := g.logged[ip]
	if e == nil {
		e = &authLogEntry{}
		g.logged[ip] = e
	}
	if e.failures == 0 && now.Sub(e.last) >= authLogInterval {
		e.last = now
		g.log.Warn("SMTP AUTH failed; this client's further failures are summed up every "+authLogInterval.String(), "event", "smtp-auth-refused", "code", 535, "client", ip, "user", user, "lockedOut", locked)
		return
	}
	e.failures++
	e.locked = e.locked || locked
	if len(e.users) < maxLoggedUsers && !slices.Contains(e.users, user) {
		e.users = append(e.users, user)
	}
}

// flush logs one line per client with pending failures.
func (g *authGuard) flush() {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	for ip, e := range g.logged {
		if e.failures == 0 {
			if now.Sub(e.last) >= authLogInterval {
				delete(g.logged, ip)
			}
			continue
		}
		g.log.Warn(fmt.Sprintf("SMTP AUTH failures in the last %s", authLogInterval), "client", ip, "failures", e.failures, "users", e.users, "lockedOut", e.locked)
		*e = authLogEntry{last: now}
	}
}

// run flushes the log every authLogInterval until done is closed, then
// once more.
func (g *authGuard) run(done <-chan struct{}) {
	t := time.NewTicker(authLogInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			g.flush()
		case <-done:
			g.flush()
			return
		}
	}
}
