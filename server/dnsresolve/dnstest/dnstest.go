// Package dnstest runs a DNS server on a loopback port for tests and
// benchmarks of DNS clients: it answers from a set of records, optionally
// after a delay, and can drop queries or answer them with raw bytes, so a
// test can make a server that is slow, loses packets or talks garbage.
package dnstest

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// Options shape how a Server answers. The zero value answers every query at
// once.
type Options struct {
	// Delay is waited before each answer.
	Delay time.Duration
	// Drop, when set, is asked about every query: n counts the queries for
	// that name and type so far, this one included; true leaves it
	// unanswered.
	Drop func(q dns.Question, n int) bool
	// Raw, when set, may replace an answer: non-nil bytes are sent as they
	// are instead of the answer built from the records.
	Raw func(query *dns.Msg) []byte
	// NegativeTTL is the SOA TTL sent with NXDOMAIN and NODATA answers; 0
	// sends no SOA.
	NegativeTTL uint32
}

// Server is a running DNS server on UDP and TCP at Addr ("127.0.0.1:port").
type Server struct {
	Addr    string
	opts    Options
	servers []*dns.Server // UDP and TCP

	mu      sync.Mutex
	records map[string][]dns.RR // by lowercased owner name
	asked   map[string]int      // by "name/type"
	total   int
}

// Start serves records (zone-file lines, such as
// `example.org. 300 IN TXT "v=spf1 -all"`) until t ends.
func Start(t testing.TB, opts Options, records ...string) *Server {
	t.Helper()
	s, err := Serve(opts, records...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Serve serves records as Start does, until Close: for a TestMain, which
// has no test to end with.
func Serve(opts Options, records ...string) (*Server, error) {
	s := &Server{opts: opts, records: make(map[string][]dns.RR), asked: make(map[string]int)}
	if err := s.add(records); err != nil {
		return nil, err
	}
	var udp net.PacketConn
	var tcp net.Listener
	for attempt := 0; tcp == nil; attempt++ {
		var err error
		if udp, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			return nil, fmt.Errorf("dnstest: listen: %w", err)
		}
		if tcp, err = net.Listen("tcp", udp.LocalAddr().String()); err != nil {
			udp.Close()
			if attempt == 10 {
				return nil, fmt.Errorf("dnstest: listen on TCP beside UDP: %w", err)
			}
		}
	}
	s.Addr = udp.LocalAddr().String()
	for _, srv := range []*dns.Server{{PacketConn: udp, Handler: s}, {Listener: tcp, Handler: s}} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		go func() { _ = srv.ActivateAndServe() }()
		<-started
		s.servers = append(s.servers, srv)
	}
	return s, nil
}

// Close stops the server.
func (s *Server) Close() {
	for _, srv := range s.servers {
		_ = srv.Shutdown()
	}
}

// Set adds records (zone-file lines) to those served.
func (s *Server) Set(t testing.TB, records ...string) {
	t.Helper()
	if err := s.add(records); err != nil {
		t.Fatal(err)
	}
}

// add adds records (zone-file lines) to those served.
func (s *Server) add(records []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, line := range records {
		rr, err := dns.NewRR(line)
		if err != nil || rr == nil {
			return fmt.Errorf("dnstest: record %q: %v", line, err)
		}
		name := strings.ToLower(rr.Header().Name)
		s.records[name] = append(s.records[name], rr)
	}
	return nil
}

// Queries counts the queries received for name and type (as in
// dns.TypeTXT) and in all.
func (s *Server) Queries(name string, qtype uint16) (forName, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[key(dns.Fqdn(name), qtype)], s.total
}

func key(name string, qtype uint16) string {
	return fmt.Sprintf("%s/%d", strings.ToLower(name), qtype)
}

// Resolver is net's pure-Go resolver asking only this server, for code
// that takes a *net.Resolver (or a netguard.Resolver): with it a test
// looks names up on loopback, never on the machine's resolver.
func (s *Server) Resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, s.Addr)
	}}
}

// ServeDNS implements dns.Handler.
func (s *Server) ServeDNS(w dns.ResponseWriter, query *dns.Msg) {
	if len(query.Question) != 1 {
		return
	}
	q := query.Question[0]
	s.mu.Lock()
	s.total++
	s.asked[key(q.Name, q.Qtype)]++
	n := s.asked[key(q.Name, q.Qtype)]
	reply := s.answerLocked(query)
	s.mu.Unlock()
	if s.opts.Drop != nil && s.opts.Drop(q, n) {
		return
	}
	time.Sleep(s.opts.Delay)
	if s.opts.Raw != nil {
		if raw := s.opts.Raw(query); raw != nil {
			_, _ = w.Write(raw)
			return
		}
	}
	if _, isUDP := w.RemoteAddr().(*net.UDPAddr); isUDP {
		size := uint16(dns.MinMsgSize)
		if opt := query.IsEdns0(); opt != nil {
			size = opt.UDPSize()
		}
		reply.Truncate(int(size))
	}
	_ = w.WriteMsg(reply)
}

// answerLocked builds the answer to a query from the records: those of
// the name and type asked (following one CNAME), NODATA when the name has
// only others, NXDOMAIN when it has none.
func (s *Server) answerLocked(query *dns.Msg) *dns.Msg {
	q := query.Question[0]
	reply := new(dns.Msg)
	reply.SetReply(query)
	reply.Authoritative = true
	name := strings.ToLower(q.Name)
	owned := s.records[name]
	for _, rr := range owned {
		if cname, ok := rr.(*dns.CNAME); ok && q.Qtype != dns.TypeCNAME {
			reply.Answer = append(reply.Answer, cname)
			name = strings.ToLower(cname.Target)
		}
	}
	for _, rr := range s.records[name] {
		if rr.Header().Rrtype == q.Qtype {
			reply.Answer = append(reply.Answer, rr)
		}
	}
	if len(owned) == 0 {
		reply.Rcode = dns.RcodeNameError
	}
	if len(reply.Answer) == 0 && s.opts.NegativeTTL > 0 {
		reply.Ns = append(reply.Ns, &dns.SOA{
			Hdr: dns.RR_Header{Name: ".", Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: s.opts.NegativeTTL},
			Ns:  "ns.test.", Mbox: "hostmaster.test.", Serial: 1, Refresh: 3600, Retry: 600, Expire: 86400, Minttl: s.opts.NegativeTTL,
		})
	}
	if opt := query.IsEdns0(); opt != nil {
		reply.SetEdns0(opt.UDPSize(), false)
	}
	return reply
}
