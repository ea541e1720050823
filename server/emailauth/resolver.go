package emailauth

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
)

// Resolver is the DNS the checks use; *net.Resolver satisfies it.
type Resolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
	LookupMX(ctx context.Context, name string) ([]*net.MX, error)
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
	LookupAddr(ctx context.Context, addr string) ([]string, error)
}

// The words of a failed lookup in result details: they name what the DNS
// did, and model.CheckReason reads them ("DKIM: the DNS did not answer").
const (
	dnsTimeout       = "dns timeout"        // nothing answered in time
	dnsRefused       = "dns refused"        // the server answered REFUSED
	dnsServerFailure = "dns server failure" // SERVFAIL, another RCODE, or garbage
)

// ContextBound is implemented by resolvers whose lookups return by their
// context's deadline on their own, such as StaticResolver and
// dnsresolve.Resolver: the checks call them directly. Other resolvers
// (net.Resolver through the C library, for one) may not, so each of their
// lookups runs in a goroutine the checks abandon at the deadline.
type ContextBound interface {
	// LookupsEndWithContext marks the resolver; it does nothing.
	LookupsEndWithContext()
}

// boundedResolver makes every lookup return by the context's deadline, in a
// goroutine of its own unless the resolver is ContextBound (an abandoned
// goroutine is left to finish on its own). A lookup cut short, or one the
// resolver says timed out (such as a query it remembers went unanswered),
// reports the same temporary *net.DNSError, the form the SPF and DKIM
// libraries treat as a temporary failure, whose text is "dns timeout";
// another temporary failure reads "dns refused" or "dns server failure".
type boundedResolver struct {
	dns    Resolver
	direct bool // dns is ContextBound
}

func newBoundedResolver(dns Resolver) boundedResolver {
	_, direct := dns.(ContextBound)
	return boundedResolver{dns: dns, direct: direct}
}

func (b boundedResolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	return bounded(ctx, b.direct, name, func(ctx context.Context) ([]string, error) { return b.dns.LookupTXT(ctx, name) })
}

func (b boundedResolver) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	return bounded(ctx, b.direct, name, func(ctx context.Context) ([]*net.MX, error) { return b.dns.LookupMX(ctx, name) })
}

func (b boundedResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	return bounded(ctx, b.direct, host, func(ctx context.Context) ([]net.IPAddr, error) { return b.dns.LookupIPAddr(ctx, host) })
}

func (b boundedResolver) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	return bounded(ctx, b.direct, addr, func(ctx context.Context) ([]string, error) { return b.dns.LookupAddr(ctx, addr) })
}

func bounded[T any](ctx context.Context, direct bool, name string, lookup func(context.Context) (T, error)) (T, error) {
	var none T
	if ctx.Err() != nil {
		return none, timeoutError(name)
	}
	if direct {
		return timedOutAs(ctx, name, lookup)
	}
	type answer struct {
		value T
		err   error
	}
	answers := make(chan answer, 1)
	go func() {
		value, err := timedOutAs(ctx, name, lookup)
		answers <- answer{value, err}
	}()
	select {
	case a := <-answers:
		return a.value, a.err
	case <-ctx.Done():
		return none, timeoutError(name)
	}
}

// timedOutAs runs a lookup and reports a timeout, whether the resolver's or
// the context's, as timeoutError, and another temporary failure in the
// words of dnsFailure.
func timedOutAs[T any](ctx context.Context, name string, lookup func(context.Context) (T, error)) (T, error) {
	value, err := lookup(ctx)
	if err == nil {
		return value, nil
	}
	var none T
	var dnsErr *net.DNSError
	switch {
	case ctx.Err() != nil || errors.As(err, &dnsErr) && dnsErr.IsTimeout:
		return none, timeoutError(name)
	case dnsErr != nil && dnsErr.IsTemporary && !dnsErr.IsNotFound:
		return none, &net.DNSError{Err: dnsFailure(dnsErr), Name: name, IsTemporary: true}
	}
	return value, err
}

// dnsFailure names a temporary failure: dnsTimeout, dnsRefused or
// dnsServerFailure.
func dnsFailure(err *net.DNSError) string {
	switch {
	case err.IsTimeout:
		return dnsTimeout
	case strings.Contains(err.Err, "refused"):
		return dnsRefused
	}
	return dnsServerFailure
}

// lookupFailure is the words of a lookup error that is a temporary DNS
// failure (see dnsFailure), or "".
func lookupFailure(err error) string {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && (dnsErr.IsTemporary || dnsErr.IsTimeout) && !dnsErr.IsNotFound {
		return dnsFailure(dnsErr)
	}
	return ""
}

func timeoutError(name string) *net.DNSError {
	return &net.DNSError{Err: dnsTimeout, Name: name, IsTimeout: true}
}

// StaticResolver is an in-process resolver with fixed records, for tests and
// the offline demo. Names are matched as given and then lowercased without
// a trailing dot; PTR keys are IP addresses in their usual text form
// ("127.0.0.1", "2001:db8::1"). Unknown names answer a *net.DNSError with
// IsNotFound set, as a real resolver does for NXDOMAIN.
type StaticResolver struct {
	TXT map[string][]string
	MX  map[string][]*net.MX
	A   map[string][]net.IPAddr // A and AAAA records
	PTR map[string][]string
}

var (
	_ Resolver     = StaticResolver{}
	_ ContextBound = StaticResolver{}
)

// LookupsEndWithContext implements ContextBound: StaticResolver answers at
// once.
func (StaticResolver) LookupsEndWithContext() {}

func (s StaticResolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	return staticLookup(ctx, s.TXT, name, normalizeName(name))
}

func (s StaticResolver) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	return staticLookup(ctx, s.MX, name, normalizeName(name))
}

func (s StaticResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	return staticLookup(ctx, s.A, host, normalizeName(host))
}

func (s StaticResolver) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	canonical := addr
	if ip := net.ParseIP(addr); ip != nil {
		canonical = ip.String()
	}
	return staticLookup(ctx, s.PTR, addr, canonical)
}

func staticLookup[T any](ctx context.Context, records map[string][]T, name, normalized string) ([]T, error) {
	if err := ctx.Err(); err != nil {
		return nil, &net.DNSError{Err: err.Error(), Name: name, IsTimeout: true}
	}
	if found, ok := records[name]; ok {
		return slices.Clone(found), nil
	}
	if found, ok := records[normalized]; ok {
		return slices.Clone(found), nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func normalizeName(name string) string {
	return strings.ToLower(strings.TrimSuffix(name, "."))
}
