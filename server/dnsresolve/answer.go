package dnsresolve

import (
	"math"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// outcome is how a lookup ended, in the terms of net.DNSError.
type outcome uint8

const (
	answered    outcome = iota // records of the type asked for
	notFound                   // NXDOMAIN or NODATA: IsNotFound
	serverFail                 // SERVFAIL: IsTemporary
	refused                    // REFUSED: IsTemporary
	timedOut                   // no answer in time: IsTimeout
	misbehaving                // any other rcode or an unusable answer: IsTemporary
)

// answer is what one query for a name and type found: the records (in the
// field of their type) or why there are none, and how long it may be
// cached (0: not at all).
type answer struct {
	outcome outcome
	ttl     time.Duration
	server  string    // who answered (or was asked last)
	txt     []string  // TXT: the strings of each record, joined
	mx      []*net.MX // MX, by preference; hosts end with a dot
	ips     []net.IP  // A or AAAA
	names   []string  // PTR; each ends with a dot
	// invalidNames counts PTR names dropped as not domain names (net
	// reports them with an error beside the valid ones).
	invalidNames int
}

// errorText is the net.DNSError text of each failed outcome, as net's
// resolver words it (REFUSED, which net calls misbehaving too, by its name).
var errorText = map[outcome]string{
	notFound:    "no such host",
	serverFail:  "server misbehaving",
	refused:     "server refused the query",
	timedOut:    "i/o timeout",
	misbehaving: "server misbehaving",
}

// dnsError is the error a lookup of name returns for a, or nil.
func (a *answer) dnsError(name string) error {
	if a.outcome == answered {
		if a.invalidNames > 0 {
			return &net.DNSError{Err: "DNS response contained records which contain invalid names", Name: name, Server: a.server}
		}
		return nil
	}
	return &net.DNSError{
		Err:        errorText[a.outcome],
		Name:       name,
		Server:     a.server,
		IsNotFound: a.outcome == notFound,
		// Every failure but a name that does not exist is temporary: RFC
		// 7208 section 5 makes any RCODE but 0 and 3, and a timeout,
		// temperror, and the SPF, DKIM and DMARC libraries read
		// IsTemporary so.
		IsTemporary: a.outcome != notFound,
		IsTimeout:   a.outcome == timedOut,
	}
}

// parseAnswer reads the response to a question of type qtype. Records of
// other types in the answer section (a CNAME chain, or garbage) are
// skipped; without any of qtype the name has no such records (NODATA).
// Any message gives an answer: nothing here trusts the server.
func parseAnswer(msg *dns.Msg, qtype uint16) answer {
	switch msg.Rcode {
	case dns.RcodeSuccess:
	case dns.RcodeNameError:
		return answer{outcome: notFound, ttl: negativeTTL(msg)}
	case dns.RcodeServerFailure:
		return answer{outcome: serverFail}
	case dns.RcodeRefused:
		return answer{outcome: refused}
	default:
		return answer{outcome: misbehaving}
	}
	a := answer{outcome: answered}
	minTTL := uint32(math.MaxUint32)
	for _, rr := range msg.Answer {
		header := rr.Header()
		if header == nil {
			continue
		}
		minTTL = min(minTTL, header.Ttl)
		if header.Rrtype != qtype || header.Class != dns.ClassINET {
			continue
		}
		switch rr := rr.(type) {
		case *dns.TXT:
			a.txt = append(a.txt, strings.Join(rr.Txt, ""))
		case *dns.MX:
			if !isDomainName(rr.Mx) {
				continue
			}
			a.mx = append(a.mx, &net.MX{Host: dns.Fqdn(rr.Mx), Pref: rr.Preference})
		case *dns.A:
			if ip := rr.A.To4(); ip != nil {
				a.ips = append(a.ips, ip)
			}
		case *dns.AAAA:
			if ip := rr.AAAA.To16(); ip != nil && ip.To4() == nil {
				a.ips = append(a.ips, ip)
			}
		case *dns.PTR:
			if !isDomainName(rr.Ptr) {
				a.invalidNames++
				continue
			}
			a.names = append(a.names, dns.Fqdn(rr.Ptr))
		}
	}
	if len(a.txt)+len(a.mx)+len(a.ips)+len(a.names) == 0 && a.invalidNames == 0 {
		return answer{outcome: notFound, ttl: negativeTTL(msg)}
	}
	slices.SortStableFunc(a.mx, func(x, y *net.MX) int { return int(x.Pref) - int(y.Pref) })
	a.ttl = time.Duration(minTTL) * time.Second
	return a
}

// negativeTTL is how long a negative answer may be cached (RFC 2308
// section 5): the smaller of the TTL and MINIMUM of the authority
// section's SOA; without a SOA, not at all.
func negativeTTL(msg *dns.Msg) time.Duration {
	for _, rr := range msg.Ns {
		if soa, ok := rr.(*dns.SOA); ok {
			return time.Duration(min(soa.Hdr.Ttl, soa.Minttl)) * time.Second
		}
	}
	return 0
}

// isDomainName reports whether s is a host name a check may look up:
// letters, digits, hyphens and underscores in dot-separated labels of
// 1-63 bytes, at most 253 bytes in all.
func isDomainName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
