package core

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"sandview/model"
	"sandview/server/dnsresolve"
	"sandview/server/emailauth"
	"sandview/server/mailparse"
)

// DNS health and statistics: the servers are probed once at start (a
// resolver that cannot name the root's servers within dnsProbeTimeout is
// reported), and the cache's counts are logged at debug level every
// dnsStatsInterval while they change.
const (
	dnsProbeTimeout  = time.Second
	dnsStatsInterval = time.Minute
)

var _ emailauth.Resolver = (*dnsresolve.Resolver)(nil)

// checks are what arrival asks of the outside world about a message: the
// authentication checks (SPF, DKIM, DMARC, reverse DNS) and spamd's score.
type checks struct {
	checker         *emailauth.Checker
	loopbackChecker *emailauth.Checker   // nil unless Options.LoopbackAuthBudget applies
	dns             *dnsresolve.Resolver // nil when Options.Resolver is set
	spamd           string
	spamdBudget     time.Duration
	spamdBreaker    *spamBreaker
}

// newChecks prepares the checks: Options.Resolver when given, else a
// caching DNS client asking Options.DNSServers or the system's resolvers;
// mail from a loopback address gets LoopbackAuthBudget with the latter.
func newChecks(o Options) (*checks, error) {
	c := &checks{spamd: o.Spamd, spamdBudget: o.SpamdBudget, spamdBreaker: &spamBreaker{now: o.Now}}
	resolver := o.Resolver
	if resolver == nil {
		dns, err := dnsresolve.New(dnsresolve.Config{Servers: o.DNSServers, Logger: o.Logger.With("component", "dns")})
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		c.dns, resolver = dns, dns
	}
	if c.dns != nil && o.LoopbackAuthBudget > 0 {
		c.loopbackChecker = &emailauth.Checker{Resolver: resolver, Budget: o.LoopbackAuthBudget}
	}
	c.checker = &emailauth.Checker{Resolver: resolver, Budget: o.AuthBudget}
	return c, nil
}

// watch probes the DNS servers once (a silence is logged once) and logs
// the cache's counts at debug level while they change, until ctx ends;
// wg tracks it.
func (c *checks) watch(ctx context.Context, wg *sync.WaitGroup, log *slog.Logger) {
	if c.dns == nil {
		return
	}
	log.Debug("DNS for the authentication checks", "servers", strings.Join(c.dns.Servers(), ", "))
	wg.Go(func() {
		probe, cancel := context.WithTimeout(ctx, dnsProbeTimeout)
		c.dns.Probe(probe)
		cancel()
		ticker := time.NewTicker(dnsStatsInterval)
		defer ticker.Stop()
		var logged dnsresolve.Stats
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				if stats := c.dns.Stats(); stats != logged {
					log.Debug("DNS cache", "stats", stats)
					logged = stats
				}
			}
		}
	})
}

// close ends the DNS queries in flight and logs the cache's counts.
func (c *checks) close(log *slog.Logger) {
	if c.dns != nil {
		c.dns.Close()
		log.Debug("DNS cache", "stats", c.dns.Stats())
	}
}

// check runs the SPF, DKIM, DMARC and reverse-DNS checks within the
// DNS budget.
func (c *checks) check(ctx context.Context, a Arrival, msg *mailparse.Message) model.AuthResults {
	checker := c.checker
	if c.loopbackChecker != nil && a.RemoteIP != nil && a.RemoteIP.IsLoopback() {
		checker = c.loopbackChecker
	}
	fromDomain := ""
	if at := strings.LastIndexByte(msg.FromAddress, '@'); at >= 0 {
		fromDomain = strings.ToLower(msg.FromAddress[at+1:])
	}
	return checker.Check(ctx, emailauth.Input{
		Raw:        a.Raw,
		RemoteIP:   a.RemoteIP,
		Helo:       a.Helo,
		MailFrom:   a.MailFrom,
		FromDomain: fromDomain,
	})
}
