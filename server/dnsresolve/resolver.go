package dnsresolve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
	"golang.org/x/sync/singleflight"
)

// Defaults of Config.
const (
	DefaultResolvConf   = "/etc/resolv.conf"
	DefaultHostsFile    = "/etc/hosts"
	DefaultMaxTTL       = time.Hour
	DefaultMaxEntries   = 10000
	DefaultHoldDown     = 5 * time.Second
	DefaultQueryTimeout = 5 * time.Second
	DefaultRetransmit   = 150 * time.Millisecond
)

// Config configures a Resolver. The zero value of every field means its
// default.
type Config struct {
	// Servers are the DNS servers asked, as host:port (host alone means
	// port 53); empty means the nameservers of ResolvConf.
	Servers []string
	// ResolvConf is read for servers when Servers is empty
	// (/etc/resolv.conf); without any there, the local server is asked.
	ResolvConf string
	// HostsFile answers address and PTR lookups first (/etc/hosts), as the
	// system resolver does. It is read once, by New; a missing file is
	// empty.
	HostsFile string
	// MaxTTL caps how long an answer is cached (1h); MaxEntries bounds the
	// cache (10000 answers).
	MaxTTL     time.Duration
	MaxEntries int
	// HoldDown is how long a query that timed out or got a server failure
	// is remembered (5s).
	HoldDown time.Duration
	// QueryTimeout bounds one query and its retransmissions (5s), whether
	// or not the lookups waiting for it still wait; Retransmit is the first
	// interval before a query is sent again (150ms), doubling after.
	QueryTimeout, Retransmit time.Duration
	// Now is the clock (time.Now).
	Now func() time.Time
	// Logger gets one warning when the servers stop answering and a note
	// when they answer again; nil discards them.
	Logger *slog.Logger
}

// Resolver is a caching DNS stub resolver; see the package documentation.
// It is safe for concurrent use. Close ends the queries in flight.
type Resolver struct {
	cfg     Config
	hosts   hosts
	cache   *cache
	flights singleflight.Group

	ctx    context.Context // ends with Close; queries run in it
	cancel context.CancelFunc

	hits, misses, queries, late, timeouts atomic.Uint64
	health                                health
}

// New makes a Resolver: it reads the resolver configuration and hosts file
// but sends nothing.
func New(cfg Config) (*Resolver, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(cfg.HostsFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("dns: read hosts file: %w", err)
	}
	r := &Resolver{cfg: cfg, hosts: parseHosts(data), cache: newCache(cfg.MaxEntries)}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r, nil
}

func (cfg Config) withDefaults() (Config, error) {
	if cfg.ResolvConf == "" {
		cfg.ResolvConf = DefaultResolvConf
	}
	if cfg.HostsFile == "" {
		cfg.HostsFile = DefaultHostsFile
	}
	servers, err := serverAddresses(cfg.Servers, cfg.ResolvConf)
	if err != nil {
		return cfg, err
	}
	cfg.Servers = servers
	for _, d := range []*time.Duration{&cfg.MaxTTL, &cfg.HoldDown, &cfg.QueryTimeout, &cfg.Retransmit} {
		if *d < 0 {
			return cfg, errors.New("dns: durations must be positive")
		}
	}
	if cfg.MaxTTL == 0 {
		cfg.MaxTTL = DefaultMaxTTL
	}
	if cfg.HoldDown == 0 {
		cfg.HoldDown = DefaultHoldDown
	}
	if cfg.QueryTimeout == 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	if cfg.Retransmit == 0 {
		cfg.Retransmit = DefaultRetransmit
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg, nil
}

// serverAddresses checks the configured servers, or reads them from a
// resolv.conf; each gets a port (53 unless given).
func serverAddresses(given []string, resolvConf string) ([]string, error) {
	if len(given) == 0 {
		conf, err := dns.ClientConfigFromFile(resolvConf)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("dns: read %s: %w", resolvConf, err)
		}
		if err != nil || len(conf.Servers) == 0 {
			return []string{"127.0.0.1:53", "[::1]:53"}, nil // as net does without servers
		}
		for _, s := range conf.Servers {
			given = append(given, net.JoinHostPort(s, conf.Port))
		}
		return given, nil
	}
	out := make([]string, 0, len(given))
	for _, s := range given {
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			host, port = strings.Trim(s, "[]"), "53"
		}
		if net.ParseIP(host) == nil && !isDomainName(host) {
			return nil, fmt.Errorf("dns: server %q is not HOST:PORT", s)
		}
		if p, err := net.LookupPort("udp", port); err != nil || p == 0 {
			return nil, fmt.Errorf("dns: server %q: bad port %q", s, port)
		}
		out = append(out, net.JoinHostPort(host, port))
	}
	return out, nil
}

// Servers lists the servers the resolver asks, as host:port.
func (r *Resolver) Servers() []string { return append([]string(nil), r.cfg.Servers...) }

// LookupsEndWithContext marks that every lookup returns once its context
// ends (the query runs on without it), so callers need not watch over it
// (see server/emailauth.ContextBound).
func (r *Resolver) LookupsEndWithContext() {}

// Close ends the queries in flight; lookups after it fail at once.
func (r *Resolver) Close() { r.cancel() }

// Stats counts lookups since the resolver was made.
type Stats struct {
	// Hits were answered from the cache (answers, negative answers and
	// held-down failures); Misses were not. Queries went to the servers:
	// misses beyond them joined a query already in flight.
	Hits, Misses, Queries uint64
	// Late lookups gave up (their context ended) before the answer came;
	// Timeouts are queries nothing answered within the query timeout.
	Late, Timeouts uint64
	// Cached is the number of answers in the cache.
	Cached int
}

// Stats returns the counts so far.
func (r *Resolver) Stats() Stats {
	return Stats{
		Hits: r.hits.Load(), Misses: r.misses.Load(), Queries: r.queries.Load(),
		Late: r.late.Load(), Timeouts: r.timeouts.Load(), Cached: r.cache.len(),
	}
}

// LogValue renders the counts for a log line.
func (s Stats) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Uint64("hits", s.Hits), slog.Uint64("misses", s.Misses), slog.Uint64("queries", s.Queries),
		slog.Uint64("late", s.Late), slog.Uint64("timeouts", s.Timeouts), slog.Int("cached", s.Cached))
}

// Probe asks the servers one question (the root's NS records) and reports
// whether any answered within ctx (at most the query timeout), in any way;
// a silence is logged as lookups' timeouts are.
func (r *Resolver) Probe(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.QueryTimeout)
	defer cancel()
	a := exchange(ctx, r.cfg.Servers, r.cfg.Retransmit, question{name: ".", qtype: dns.TypeNS})
	if a.outcome == timedOut && errors.Is(ctx.Err(), context.Canceled) {
		return false // the caller gave up (a server shutting down): no verdict on the servers
	}
	r.noteHealth(a)
	return a.outcome != timedOut
}

// lookup answers one question from the cache or by a query (shared with
// concurrent lookups of it), waiting for the query no longer than ctx.
func (r *Resolver) lookup(ctx context.Context, name string, qtype uint16) (answer, error) {
	q := question{name: dns.Fqdn(strings.ToLower(name)), qtype: qtype}
	if !isDomainName(name) {
		a := answer{outcome: notFound}
		return a, a.dnsError(name)
	}
	if a, ok := r.cache.get(q, r.cfg.Now()); ok {
		r.hits.Add(1)
		return a, a.dnsError(name)
	}
	if r.health.silent.Load() {
		r.hits.Add(1) // held down: the servers are not asked
		a := answer{outcome: timedOut, server: strings.Join(r.cfg.Servers, ", ")}
		return a, a.heldDownError(name)
	}
	r.misses.Add(1)
	asked := time.Now()
	flight := r.flights.DoChan(fmt.Sprintf("%s/%d", q.name, q.qtype), func() (any, error) {
		return r.query(q), nil
	})
	select {
	case res := <-flight:
		a := res.Val.(answer)
		return a, a.dnsError(name)
	case <-ctx.Done():
		r.late.Add(1)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			r.suspectSilence(asked)
		}
		a := answer{outcome: timedOut}
		return a, a.dnsError(name)
	}
}

// query asks the servers and caches what they say: answers and negative
// answers for their TTL (at most MaxTTL), failures for HoldDown.
func (r *Resolver) query(q question) answer {
	if cached, ok := r.cache.get(q, r.cfg.Now()); ok {
		return cached // answered while this flight was being set up
	}
	r.queries.Add(1)
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.QueryTimeout)
	defer cancel()
	a := exchange(ctx, r.cfg.Servers, r.cfg.Retransmit, q)
	r.noteHealth(a)
	ttl := min(a.ttl, r.cfg.MaxTTL)
	switch a.outcome {
	case timedOut:
		if r.ctx.Err() != nil {
			return a // closed: nothing to remember
		}
		r.timeouts.Add(1)
		ttl = r.cfg.HoldDown
	case serverFail, refused, misbehaving:
		ttl = r.cfg.HoldDown
	}
	if ttl > 0 {
		r.cache.put(q, a, r.cfg.Now().Add(ttl))
	}
	return a
}

// LookupTXT returns the TXT records of name, each record's strings joined.
func (r *Resolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	a, err := r.lookup(ctx, name, dns.TypeTXT)
	if err != nil {
		return nil, err
	}
	return append([]string(nil), a.txt...), nil
}

// LookupMX returns the MX records of name, by preference.
func (r *Resolver) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	a, err := r.lookup(ctx, name, dns.TypeMX)
	if err != nil {
		return nil, err
	}
	out := make([]*net.MX, len(a.mx))
	for i, mx := range a.mx {
		out[i] = &net.MX{Host: mx.Host, Pref: mx.Pref}
	}
	return out, nil
}

// LookupIPAddr returns the IPv4 and IPv6 addresses of host: from the hosts
// file if it names host, else from its A and AAAA records, asked at once.
// It fails only when neither has any.
func (r *Resolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	if ip := net.ParseIP(host); ip != nil {
		return []net.IPAddr{{IP: ip}}, nil
	}
	if ips := r.hosts.addrs[canonicalHost(host)]; len(ips) > 0 {
		out := make([]net.IPAddr, len(ips))
		for i, ip := range ips {
			out[i] = net.IPAddr{IP: append(net.IP(nil), ip...)}
		}
		return out, nil
	}
	var v4, v6 answer
	var err4, err6 error
	var wg sync.WaitGroup
	wg.Go(func() { v4, err4 = r.lookup(ctx, host, dns.TypeA) })
	v6, err6 = r.lookup(ctx, host, dns.TypeAAAA)
	wg.Wait()
	var out []net.IPAddr
	for _, ip := range append(append([]net.IP(nil), v4.ips...), v6.ips...) {
		out = append(out, net.IPAddr{IP: append(net.IP(nil), ip...)})
	}
	switch {
	case len(out) > 0:
		return out, nil
	case err4 != nil && !isNotFound(err4):
		return nil, err4
	case err6 != nil:
		return nil, err6
	}
	return nil, err4
}

func isNotFound(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

// LookupAddr returns the names of an address: from the hosts file if it
// names the address, else from its PTR records. Each name ends with a dot.
func (r *Resolver) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	ip := net.ParseIP(addr)
	if ip == nil {
		return nil, &net.DNSError{Err: "unrecognized address", Name: addr}
	}
	if names := r.hosts.names[ip.String()]; len(names) > 0 {
		return append([]string(nil), names...), nil
	}
	arpa, err := dns.ReverseAddr(ip.String())
	if err != nil {
		return nil, &net.DNSError{Err: "unrecognized address", Name: addr}
	}
	a, err := r.lookup(ctx, arpa, dns.TypePTR)
	return append([]string(nil), a.names...), err
}
