package server

import (
	"context"
	"fmt"
	"strings"
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

// setupChecks prepares the authentication checks: Config.Resolver when
// given, else a caching DNS client asking Config.DNSServers or the
// system's resolvers. Without an explicit AuthBudget, mail from a loopback
// address gets the short DefaultLoopbackAuthBudget.
func (s *Server) setupChecks() error {
	resolver := s.cfg.Resolver
	if resolver == nil {
		dns, err := dnsresolve.New(dnsresolve.Config{Servers: s.cfg.DNSServers, Logger: s.log.With("component", "dns")})
		if err != nil {
			return fmt.Errorf("config: %w", err)
		}
		s.dns, resolver = dns, dns
	}
	budget := s.cfg.AuthBudget
	if budget == 0 {
		budget = DefaultAuthBudget
		if s.dns != nil {
			s.loopbackChecker = &emailauth.Checker{Resolver: resolver, Budget: DefaultLoopbackAuthBudget}
		}
	}
	s.checker = &emailauth.Checker{Resolver: resolver, Budget: budget}
	return nil
}

// watchDNS probes the DNS servers once (a silence is logged once) and logs
// the cache's counts at debug level while they change, until the server
// stops.
func (s *Server) watchDNS() {
	if s.dns == nil {
		return
	}
	s.log.Debug("DNS for the authentication checks", "servers", strings.Join(s.dns.Servers(), ", "))
	s.loops.Go(func() {
		probe, cancel := context.WithTimeout(s.baseCtx, dnsProbeTimeout)
		s.dns.Probe(probe)
		cancel()
		ticker := time.NewTicker(dnsStatsInterval)
		defer ticker.Stop()
		var logged dnsresolve.Stats
		for {
			select {
			case <-s.baseCtx.Done():
				return
			case <-ticker.C:
				if stats := s.dns.Stats(); stats != logged {
					s.log.Debug("DNS cache", "stats", stats)
					logged = stats
				}
			}
		}
	})
}

// closeDNS ends the DNS queries in flight and logs the cache's counts.
func (s *Server) closeDNS() {
	if s.dns != nil {
		s.dns.Close()
		s.log.Debug("DNS cache", "stats", s.dns.Stats())
	}
}

// checkAuth runs the SPF, DKIM, DMARC and reverse-DNS checks within the
// DNS budget.
func (s *Server) checkAuth(ctx context.Context, d delivery, msg *mailparse.Message) model.AuthResults {
	checker := s.checker
	if s.loopbackChecker != nil && d.remoteIP != nil && d.remoteIP.IsLoopback() {
		checker = s.loopbackChecker
	}
	fromDomain := ""
	if at := strings.LastIndexByte(msg.FromAddress, '@'); at >= 0 {
		fromDomain = strings.ToLower(msg.FromAddress[at+1:])
	}
	return checker.Check(ctx, emailauth.Input{
		Raw:        d.raw,
		RemoteIP:   d.remoteIP,
		Helo:       d.helo,
		MailFrom:   d.mailFrom,
		FromDomain: fromDomain,
	})
}
