package netguard

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// Host is a URL's host as a connection reads it (ParseHost).
type Host struct {
	// Name is the ASCII host name (lower case, IDNA-mapped, one trailing
	// dot removed); for an address, the address's text.
	Name string
	// Addr is the address when the host is an IP literal in any form the
	// C library's inet_aton accepts, or an IPv6 literal; invalid for a name.
	Addr netip.Addr
}

// IsAddr reports whether the host is an address, needing no resolution.
func (h Host) IsAddr() bool { return h.Addr.IsValid() }

// ParseHost reads host (a URL's Hostname, or a dial address's host) the
// way the HTTP client and the resolver will, so that a check of the
// result holds for the connection:
//
//   - a non-ASCII name is mapped by IDNA's lookup profile (UTS #46), as
//     net/http does before it dials: NFKC folds full-width and circled
//     digits ("①②⑦", "１２７") and ideographic or full-width dots
//     ("127。0。0。1") into ASCII;
//   - an IPv4 address is read in every form inet_aton accepts, as
//     getaddrinfo does: one to four parts, the last filling the remaining
//     bytes ("127.1", "2130706433"), each decimal, octal ("0177") or hex
//     ("0x7f");
//   - IPv6 literals (with a zone) as netip reads them, IPv4-mapped ones
//     unmapped.
//
// A non-ASCII host that IDNA refuses is an error: no connection could be
// made to it as written.
func ParseHost(host string) (Host, error) {
	name := host
	if !isASCII(name) {
		mapped, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return Host{}, fmt.Errorf("host %q is not a valid international domain name: %w", host, err)
		}
		name = mapped
	}
	name = strings.ToLower(name)
	if ip, err := netip.ParseAddr(name); err == nil {
		ip = ip.Unmap()
		return Host{Name: ip.String(), Addr: ip}, nil
	}
	name = strings.TrimSuffix(name, ".")
	if ip, ok := parseIPv4Loose(name); ok {
		return Host{Name: ip.String(), Addr: ip}, nil
	}
	return Host{Name: name}, nil
}

// parseIPv4Loose reads s as inet_aton does: up to four parts separated by
// dots, each a number in C notation (decimal, 0-prefixed octal, 0x-prefixed
// hex); the last part fills the bytes the others leave (a: 32 bits, a.b:
// 8+24, a.b.c: 8+8+16).
func parseIPv4Loose(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseCNumber(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	last := len(vals) - 1
	var out uint64
	for i, v := range vals[:last] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		out |= v << (24 - 8*i)
	}
	if vals[last] > uint64(0xffffffff)>>(8*last) {
		return netip.Addr{}, false
	}
	out |= vals[last]
	return netip.AddrFrom4([4]byte{byte(out >> 24), byte(out >> 16), byte(out >> 8), byte(out)}), true
}

// parseCNumber reads a non-negative number as strtoul with base 0 does
// (decimal, octal after "0", hex after "0x"), refusing anything above 32
// bits and any other character.
func parseCNumber(s string) (uint64, bool) {
	base := uint64(10)
	switch {
	case s == "":
		return 0, false
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	var v uint64
	for _, c := range []byte(s) {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 0xffffffff {
			return 0, false
		}
	}
	return v, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
