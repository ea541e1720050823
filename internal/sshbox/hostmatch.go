package sshbox

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path"
	"strings"
)

// hostPattern is one entry of a from="…" list: a CIDR block or a wildcard
// pattern (* and ?) over the client's address, possibly negated (!).
type hostPattern struct {
	negate bool
	block  netip.Prefix // valid for a CIDR entry
	glob   string       // else
}

// hostPatterns is a from="…" list; nil allows every address.
type hostPatterns []hostPattern

// parseHostPatterns reads OpenSSH's pattern-list of from="…": entries
// separated by commas, each a CIDR block (10.0.0.0/8) or a pattern with *
// and ?, a leading ! negating it. sandview does not resolve the client's
// name, so a pattern is matched against its address (as OpenSSH does with
// UseDNS no).
func parseHostPatterns(list string) (hostPatterns, error) {
	var out hostPatterns
	for entry := range strings.SplitSeq(list, ",") {
		p := hostPattern{}
		entry = strings.TrimSpace(entry)
		if rest, ok := strings.CutPrefix(entry, "!"); ok {
			p.negate, entry = true, rest
		}
		switch {
		case entry == "":
			return nil, fmt.Errorf("an empty entry in %q", list)
		case strings.Contains(entry, "/"):
			block, err := netip.ParsePrefix(entry)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR block: %w", entry, err)
			}
			p.block = block.Masked()
		case strings.ContainsAny(entry, `[]\`):
			return nil, fmt.Errorf("%q: only * and ? are wildcards", entry)
		default:
			p.glob = strings.ToLower(entry)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, errors.New("no pattern")
	}
	return out, nil
}

// allows reports whether a client at addr may use the key: no negated
// entry matches and some other entry does (OpenSSH's rule). An address
// that is not an IP is refused by any list.
func (ps hostPatterns) allows(addr net.Addr) bool {
	if ps == nil {
		return true
	}
	ip, ok := addrIP(addr)
	if !ok {
		return false
	}
	text := strings.ToLower(ip.String())
	allowed := false
	for _, p := range ps {
		var match bool
		if p.block.IsValid() {
			match = p.block.Contains(ip)
		} else {
			match, _ = path.Match(p.glob, text) // checked at parse: no bad pattern
		}
		if match && p.negate {
			return false
		}
		allowed = allowed || match
	}
	return allowed
}

// addrIP is the IP of a TCP address, an IPv4-mapped IPv6 address given as
// IPv4.
func addrIP(addr net.Addr) (netip.Addr, bool) {
	if tcp, ok := addr.(*net.TCPAddr); ok {
		ip, ok := netip.AddrFromSlice(tcp.IP)
		return ip.Unmap().WithZone(""), ok
	}
	if addr == nil {
		return netip.Addr{}, false
	}
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap().WithZone(""), true
}
