package dnsresolve

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
)

// health is whether the servers answer. They fall silent when a query gets
// no answer from any of them within the query timeout, or when a lookup
// waited past its deadline (at least one retransmission) without any
// server answering anything meanwhile. While they are silent, lookups the
// cache cannot answer fail at once as timed out (held down) instead of
// each waiting for its deadline, so a dead DNS server costs a mail
// nothing, however many names it needs; a probe asks the servers again
// every HoldDown, and any answer ends the silence.
type health struct {
	silent     atomic.Bool
	lastAnswer atomic.Int64 // UnixNano of the last answer from any server
	probing    sync.Mutex   // held by the one probe loop
}

// suspectSilence is called when a lookup that started at asked gave up at
// its deadline: the servers are silent when it waited a retransmission or
// more and nothing answered since it started.
func (r *Resolver) suspectSilence(asked time.Time) {
	if time.Since(asked) < r.cfg.Retransmit || r.health.lastAnswer.Load() >= asked.UnixNano() {
		return
	}
	r.noteHealth(answer{outcome: timedOut})
}

// noteHealth records how the servers did: a query that timed out makes
// them silent (logged once, and a probe loop starts), any answer makes them
// answering again (logged once). Once the resolver is closed nothing is
// recorded: its queries end as timed out, which says nothing about the
// servers (a closing server must not log that they answer again).
func (r *Resolver) noteHealth(a answer) {
	if r.ctx.Err() != nil {
		return
	}
	silent := a.outcome == timedOut
	if !silent {
		r.health.lastAnswer.Store(time.Now().UnixNano())
	}
	if r.health.silent.Swap(silent) == silent {
		return
	}
	servers := strings.Join(r.cfg.Servers, ", ")
	if silent {
		r.cfg.Logger.Warn("DNS servers do not answer; authentication checks report temperror until they do", "servers", servers)
		go r.probeWhileSilent()
		return
	}
	r.cfg.Logger.Info("DNS servers answer again", "servers", servers)
}

// probeWhileSilent asks the servers one question every HoldDown while they
// are silent, until one answers or the resolver is closed.
func (r *Resolver) probeWhileSilent() {
	if !r.health.probing.TryLock() {
		return // a loop runs already, and checks the silence before it ends
	}
	defer func() {
		r.health.probing.Unlock()
		if r.health.silent.Load() && r.ctx.Err() == nil {
			go r.probeWhileSilent() // silent again as this loop ended
		}
	}()
	timer := time.NewTimer(r.cfg.HoldDown)
	defer timer.Stop()
	for r.health.silent.Load() {
		select {
		case <-r.ctx.Done():
			return
		case <-timer.C:
		}
		ctx, cancel := context.WithTimeout(r.ctx, r.cfg.QueryTimeout)
		a := exchange(ctx, r.cfg.Servers, r.cfg.Retransmit, question{name: ".", qtype: dns.TypeNS})
		cancel()
		r.noteHealth(a)
		timer.Reset(r.cfg.HoldDown)
	}
}

// heldDownError is the error of a lookup of name not asked because the
// servers are silent.
func (a *answer) heldDownError(name string) error {
	return &net.DNSError{
		Err: "DNS servers do not answer (held down)", Name: name, Server: a.server,
		IsTemporary: true, IsTimeout: true,
	}
}
