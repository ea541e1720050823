package dnsresolve

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// reply builds a response to a TXT question for example.org.
func reply(rcode int, answer []string, authority ...string) *dns.Msg {
	m := new(dns.Msg)
	m.SetQuestion("example.org.", dns.TypeTXT)
	m.Response, m.Rcode = true, rcode
	for _, line := range answer {
		rr, err := dns.NewRR(line)
		if err != nil {
			panic(err)
		}
		m.Answer = append(m.Answer, rr)
	}
	for _, line := range authority {
		rr, err := dns.NewRR(line)
		if err != nil {
			panic(err)
		}
		m.Ns = append(m.Ns, rr)
	}
	return m
}

const soa = `org. 900 IN SOA ns.org. host.org. 1 3600 600 86400 120`

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		name    string
		msg     *dns.Msg
		qtype   uint16
		outcome outcome
		ttl     time.Duration
		txt     string
	}{
		{"records, shortest TTL", reply(dns.RcodeSuccess, []string{`example.org. 300 IN TXT "a" "b"`, `example.org. 60 IN TXT "c"`}), dns.TypeTXT, answered, time.Minute, "ab|c"},
		{"CNAME chain counts for the TTL", reply(dns.RcodeSuccess, []string{`example.org. 30 IN CNAME t.example.org.`, `t.example.org. 300 IN TXT "t"`}), dns.TypeTXT, answered, 30 * time.Second, "t"},
		{"another type is NODATA", reply(dns.RcodeSuccess, []string{`example.org. 300 IN A 192.0.2.1`}, soa), dns.TypeTXT, notFound, 120 * time.Second, ""},
		{"NXDOMAIN with SOA", reply(dns.RcodeNameError, nil, soa), dns.TypeTXT, notFound, 120 * time.Second, ""},
		{"NXDOMAIN without SOA is not cached", reply(dns.RcodeNameError, nil), dns.TypeTXT, notFound, 0, ""},
		{"SERVFAIL", reply(dns.RcodeServerFailure, nil), dns.TypeTXT, serverFail, 0, ""},
		{"REFUSED", reply(dns.RcodeRefused, nil), dns.TypeTXT, refused, 0, ""},
		{"NOTIMP", reply(dns.RcodeNotImplemented, nil), dns.TypeTXT, misbehaving, 0, ""},
		{"invalid PTR names only", func() *dns.Msg {
			m := reply(dns.RcodeSuccess, nil)
			m.Answer = append(m.Answer, &dns.PTR{Hdr: dns.RR_Header{Name: "x.", Rrtype: dns.TypePTR, Class: dns.ClassINET, Ttl: 5}, Ptr: "bad name!."})
			return m
		}(), dns.TypePTR, answered, 5 * time.Second, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := parseAnswer(tt.msg, tt.qtype)
			if a.outcome != tt.outcome || a.ttl != tt.ttl || strings.Join(a.txt, "|") != tt.txt {
				t.Fatalf("got outcome %d ttl %s txt %q; want %d %s %q", a.outcome, a.ttl, a.txt, tt.outcome, tt.ttl, tt.txt)
			}
		})
	}
}

func TestParseAnswerSortsMX(t *testing.T) {
	m := reply(dns.RcodeSuccess, []string{`example.org. 300 IN MX 20 b.example.org.`, `example.org. 300 IN MX 10 a.example.org`, `example.org. 300 IN MX 5 bad!name.`})
	a := parseAnswer(m, dns.TypeMX)
	if len(a.mx) != 2 || a.mx[0].Host != "a.example.org." || a.mx[1].Host != "b.example.org." {
		t.Fatalf("MX %v", a.mx)
	}
}

// FuzzParseAnswer: any message a server may send gives an answer whose
// records are of the type asked for and whose TTL is not negative.
func FuzzParseAnswer(f *testing.F) {
	for _, m := range []*dns.Msg{
		reply(dns.RcodeSuccess, []string{`example.org. 300 IN TXT "v=spf1 -all"`, `example.org. 300 IN A 192.0.2.1`}),
		reply(dns.RcodeSuccess, []string{`example.org. 300 IN MX 10 mx.example.org.`, `example.org. 60 IN AAAA 2001:db8::1`}),
		reply(dns.RcodeSuccess, []string{`1.2.0.192.in-addr.arpa. 300 IN PTR host.example.org.`}),
		reply(dns.RcodeNameError, nil, soa),
		reply(dns.RcodeServerFailure, nil),
	} {
		packed, err := m.Pack()
		if err != nil {
			f.Fatal(err)
		}
		for _, qtype := range []uint16{dns.TypeTXT, dns.TypeMX, dns.TypeA, dns.TypeAAAA, dns.TypePTR} {
			f.Add(packed, qtype)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, qtype uint16) {
		var m dns.Msg
		if m.Unpack(data) != nil {
			return
		}
		a := parseAnswer(&m, qtype)
		if a.ttl < 0 {
			t.Fatalf("negative TTL %s", a.ttl)
		}
		records := len(a.txt) + len(a.mx) + len(a.ips) + len(a.names)
		if a.outcome != answered && records > 0 || a.outcome == answered && records == 0 && a.invalidNames == 0 {
			t.Fatalf("outcome %d with %d records", a.outcome, records)
		}
		for _, ip := range a.ips {
			if len(ip) != net.IPv4len && len(ip) != net.IPv6len {
				t.Fatalf("address of %d bytes", len(ip))
			}
		}
		for _, name := range a.names {
			if !isDomainName(name) || !strings.HasSuffix(name, ".") {
				t.Fatalf("PTR name %q", name)
			}
		}
		_ = a.dnsError("example.org")
	})
}

// FuzzParseHosts: any hosts file gives valid, lowercased names for
// parseable addresses.
func FuzzParseHosts(f *testing.F) {
	f.Add([]byte("127.0.0.1 localhost\n::1 localhost ip6-localhost # c\n"))
	f.Add([]byte("fe80::1%lo0 Link.Local\n# only a comment\n\n10.0.0.1\n"))
	f.Add([]byte("192.0.2.1 a..b bad!name ok.example.\n999.0.0.1 x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := parseHosts(data)
		for name, ips := range h.addrs {
			if name != strings.ToLower(name) || strings.HasSuffix(name, ".") || !isDomainName(name) || len(ips) == 0 {
				t.Fatalf("name %q -> %v", name, ips)
			}
		}
		for addr, names := range h.names {
			if net.ParseIP(addr) == nil || len(names) == 0 {
				t.Fatalf("address %q -> %q", addr, names)
			}
		}
	})
}

// TestFailuresButNotFoundAreTemporary: SERVFAIL, REFUSED, any other RCODE
// and a timeout are temporary (temperror in the checks); only a name that
// does not exist is not found, and nothing else is.
func TestFailuresButNotFoundAreTemporary(t *testing.T) {
	for _, tt := range []struct {
		o                              outcome
		notFound, temporary, isTimeout bool
	}{
		{notFound, true, false, false},
		{serverFail, false, true, false},
		{refused, false, true, false},
		{misbehaving, false, true, false},
		{timedOut, false, true, true},
	} {
		a := answer{outcome: tt.o}
		var dnsErr *net.DNSError
		if !errors.As(a.dnsError("example.org"), &dnsErr) {
			t.Fatalf("outcome %d: no *net.DNSError", tt.o)
		}
		if dnsErr.IsNotFound != tt.notFound || dnsErr.IsTemporary != tt.temporary || dnsErr.IsTimeout != tt.isTimeout {
			t.Errorf("outcome %d: %+v; want not found %v, temporary %v, timeout %v", tt.o, dnsErr, tt.notFound, tt.temporary, tt.isTimeout)
		}
	}
}
