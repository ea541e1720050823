// Package netguard is the destination rule for outgoing HTTP requests whose
// target a remote user chose: webhook deliveries made by the server and the
// link checker of the client. By default a request may not reach this
// machine or its networks: loopback, private (RFC 1918, unique local),
// link-local, unspecified, shared (CGNAT), multicast and reserved addresses
// and the cloud metadata services are forbidden, also when written as an
// IPv4-mapped, IPv4-compatible, NAT64 or 6to4 IPv6 address.
//
// The rule is checked twice: on the URL, its host read as the dialer
// reads it (ParseHost: every IPv4 form inet_aton takes, IDNA), resolving it
// (Rule.CheckURL, for a clear error when the URL is given), and on every
// connection, after resolution (Rule.Control, a net.Dialer hook), so that a
// name that resolves differently later (DNS rebinding) or a redirect cannot
// get around it. Rule.Transport builds an HTTP transport that does both at
// connect time.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrForbidden is the error every refusal wraps.
var ErrForbidden = errors.New("destination not allowed")

// Rule says which destinations are allowed. The zero Rule is the default:
// public addresses only.
type Rule struct {
	// AllowPrivate allows every address (the server's
	// SVC_WEBHOOK_ALLOW_PRIVATE, sandview --local, a link check the user
	// asked to include private targets).
	AllowPrivate bool
	// AllowLoopback allows loopback addresses (127.0.0.0/8, ::1) only.
	AllowLoopback bool
}

// ForbiddenError is a refused destination: the host as given, the address
// it is or resolved to, and its class.
type ForbiddenError struct {
	Host  string
	Addr  netip.Addr
	Class string
}

func (e *ForbiddenError) Error() string {
	if e.Host != "" && e.Host != e.Addr.String() {
		return fmt.Sprintf("%s resolves to %s, a %s address", e.Host, e.Addr, e.Class)
	}
	return fmt.Sprintf("%s is a %s address", e.Addr, e.Class)
}

// Unwrap makes errors.Is(err, ErrForbidden) hold.
func (e *ForbiddenError) Unwrap() error { return ErrForbidden }

// Allowed reports whether the default rule allows ip.
func Allowed(ip netip.Addr) bool { return Class(ip) == "" }

// Check returns a *ForbiddenError when the rule refuses ip.
func (r Rule) Check(ip netip.Addr) error {
	if r.AllowPrivate {
		return nil
	}
	class := Class(ip)
	if class == "" || class == ClassLoopback && r.AllowLoopback {
		return nil
	}
	return &ForbiddenError{Addr: ip.WithZone(""), Class: class}
}

// Control is a net.Dialer Control hook that refuses connections to
// addresses the rule forbids. It sees the address after resolution, so it
// holds for every name, redirect and retry.
func (r Rule) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read the address %q (%s)", ErrForbidden, address, network)
	}
	return r.Check(ap.Addr().Unmap())
}

// Resolver looks a host name up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckURL parses rawURL and checks its host as ParseHost reads it (as the
// connection will): an address in any form directly, a name by resolving
// it with resolver (nil: net.DefaultResolver). A name that does not
// resolve is allowed here (it may resolve later; Control guards the
// connection). Any resolved address the rule refuses refuses the URL.
func (r Rule) CheckURL(ctx context.Context, rawURL string, resolver Resolver) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("parse URL: %w", err)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("URL %q has no host", rawURL)
	}
	h, err := ParseHost(u.Hostname())
	if err != nil {
		return err
	}
	if r.AllowPrivate {
		return nil
	}
	host := h.Name
	if h.IsAddr() {
		err := r.Check(h.Addr)
		var fe *ForbiddenError
		if errors.As(err, &fe) && host != u.Hostname() {
			fe.Host = u.Hostname()
		}
		return err
	}
	if isLocalhost(host) {
		err := r.Check(netip.AddrFrom4([4]byte{127, 0, 0, 1}))
		var fe *ForbiddenError
		if errors.As(err, &fe) {
			fe.Host = u.Hostname()
		}
		return err
	}
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	addrs, err := resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		// Unresolvable is not forbidden: Control checks the connection.
		return nil
	}
	for _, ip := range addrs {
		if err := r.Check(ip.Unmap()); err != nil {
			var fe *ForbiddenError
			if errors.As(err, &fe) {
				fe.Host = host
			}
			return err
		}
	}
	return nil
}

// LoopbackHost reports whether host (a URL's hostname) names this
// machine's loopback without resolving: a loopback address in any form
// ParseHost reads (also IPv4-mapped), or "localhost" or a name under it.
func LoopbackHost(host string) bool {
	h, err := ParseHost(host)
	if err != nil {
		return false
	}
	if h.IsAddr() {
		return Class(h.Addr) == ClassLoopback
	}
	return isLocalhost(h.Name)
}

// isLocalhost reports whether host is "localhost" or a name under it,
// which always mean loopback (RFC 6761), whatever a resolver says.
func isLocalhost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// Transport is an HTTP transport (http.DefaultTransport's settings) whose
// connections obey the rule. Each dial address's host is read by ParseHost
// (so that an address in a form the check saw is dialled as that
// address), names are resolved with resolver (nil: net.DefaultResolver)
// and each address is checked by Control as it is dialled. Unless the rule
// allows private addresses it uses no proxy: a proxy would connect on the
// transport's behalf, where Control cannot see the destination.
func (r Rule) Transport(resolver Resolver) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: r.Control}
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	t.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		return dialResolved(ctx, d, resolver, network, address)
	}
	if !r.AllowPrivate {
		t.Proxy = nil
	}
	return t
}

// dialResolved reads address's host with ParseHost, resolves a name with
// resolver and dials the addresses in turn.
func dialResolved(ctx context.Context, d *net.Dialer, resolver Resolver, network, address string) (net.Conn, error) {
	hostport, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	host, err := ParseHost(hostport)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	if host.IsAddr() {
		return d.DialContext(ctx, network, net.JoinHostPort(host.Addr.String(), port))
	}
	addrs, err := resolver.LookupNetIP(ctx, "ip", host.Name)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host.Name, err)
	}
	errs := make([]error, 0, len(addrs))
	for _, ip := range addrs {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("resolve %s: no address", host.Name)
	}
	return nil, errors.Join(errs...)
}
