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

// dnsTimeout is the error text of a lookup abandoned at the deadline.
const dnsTimeout = "dns timeout"

// boundedResolver makes every lookup return by the context's deadline, even
// when the underlying resolver ignores the context (its goroutine is then
// left to finish on its own). A lookup cut short, or one the resolver says
// timed out (such as a query it remembers went unanswered), reports the
// same temporary *net.DNSError, the form the SPF and DKIM libraries treat
// as a temporary failure, whose text is "dns timeout".
type boundedResolver struct{ dns Resolver }

func (b boundedResolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	return bounded(ctx, name, func(ctx context.Context) ([]string, error) { return b.dns.LookupTXT(ctx, name) })
}

func (b boundedResolver) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	return bounded(ctx, name, func(ctx context.Context) ([]*net.MX, error) { return b.dns.LookupMX(ctx, name) })
}

func (b boundedResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	return bounded(ctx, host, func(ctx context.Context) ([]net.IPAddr, error) { return b.dns.LookupIPAddr(ctx, host) })
}

func (b boundedResolver) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	return bounded(ctx, addr, func(ctx context.Context) ([]string, error) { return b.dns.LookupAddr(ctx, addr) })
}

func bounded[T any](ctx context.Context, name string, lookup func(context.Context) (T, error)) (T, error) {
	var none T
	if ctx.Err() != nil {
		return none, timeoutError(name)
	}
	type answer struct {
		value T
		err   error
	}
	answers := make(chan answer, 1)
	go func() {
		value, err := lookup(ctx)
		answers <- answer{value, err}
	}()
	select {
	case a := <-answers:
		var dnsErr *net.DNSError
		if a.err != nil && (ctx.Err() != nil || errors.As(a.err, &dnsErr) && dnsErr.IsTimeout) {
			return none, timeoutError(name)
		}
		return a.value, a.err
	case <-ctx.Done():
		return none, timeoutError(name)
	}
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

var _ Resolver = StaticResolver{}

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
