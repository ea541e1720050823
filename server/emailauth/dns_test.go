package emailauth

import (
	"context"
	"encoding/json"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"sandview/model"
	"sandview/server/dnsresolve"
	"sandview/server/dnsresolve/dnstest"
)

// dnsZone publishes SPF (with include, a, mx, redirect and broken
// records), a DKIM key, DMARC (also at an organizational domain) and PTR
// records with and without forward confirmation. key is the DKIM record.
func dnsZone(key string) []string {
	return []string{
		`example.org. 300 IN TXT "v=spf1 ip4:192.0.2.0/25 include:_spf.example.net -all"`,
		`_spf.example.net. 300 IN TXT "v=spf1 a:mail.example.net mx:example.net ~all"`,
		`mail.example.net. 300 IN A 192.0.2.200`,
		`example.net. 300 IN MX 10 mx.example.net.`,
		`mx.example.net. 300 IN A 198.51.100.5`,
		`sel._domainkey.example.org. 300 IN TXT "` + strings.ReplaceAll(key, ";", "\\;") + `"`,
		`_dmarc.example.org. 300 IN TXT "v=DMARC1; p=reject; aspf=s"`,
		`_dmarc.parent.test. 300 IN TXT "v=DMARC1; p=quarantine; sp=none"`,
		`sub.parent.test. 300 IN TXT "v=spf1 ip4:192.0.2.10 -all"`,
		`softfail.example. 300 IN TXT "v=spf1 ~all"`,
		`neutral.example. 300 IN TXT "v=spf1 ?all"`,
		`redirect.example. 300 IN TXT "v=spf1 redirect=example.org"`,
		`perm.example. 300 IN TXT "v=spf1 ip4:not-an-ip -all"`,
		`two.example. 300 IN TXT "v=spf1 -all"`,
		`two.example. 300 IN TXT "v=spf1 +all"`,
		`10.2.0.192.in-addr.arpa. 300 IN PTR mail.example.org.`,
		`mail.example.org. 300 IN A 192.0.2.10`,
		`66.2.0.192.in-addr.arpa. 300 IN PTR liar.example.org.`,
		`liar.example.org. 300 IN A 192.0.2.1`,
	}
}

// dnsScenarios are messages from different senders and addresses.
func dnsScenarios(signed []byte) map[string]Input {
	plain := testMessage("hello\n")
	in := func(ip, mailFrom, from string, raw []byte) Input {
		return Input{Raw: raw, RemoteIP: net.ParseIP(ip), Helo: "mail.example.org", MailFrom: mailFrom, FromDomain: from}
	}
	return map[string]Input{
		"all pass":              in("192.0.2.10", "bounces@example.org", "example.org", signed),
		"include and a":         in("192.0.2.200", "bounces@example.org", "example.org", plain),
		"include and mx":        in("198.51.100.5", "bounces@example.org", "example.org", plain),
		"spf fail":              in("203.0.113.1", "bounces@example.org", "example.org", signed),
		"softfail":              in("203.0.113.1", "a@softfail.example", "softfail.example", plain),
		"neutral":               in("203.0.113.1", "a@neutral.example", "neutral.example", plain),
		"redirect":              in("192.0.2.10", "a@redirect.example", "redirect.example", plain),
		"permerror":             in("192.0.2.10", "a@perm.example", "perm.example", plain),
		"two records":           in("192.0.2.10", "a@two.example", "two.example", plain),
		"no such domain":        in("192.0.2.10", "a@nosuch.example", "nosuch.example", plain),
		"server failure":        in("192.0.2.10", "a@servfail.example", "servfail.example", plain),
		"inherited dmarc":       in("192.0.2.10", "a@sub.parent.test", "sub.parent.test", plain),
		"ptr not confirmed":     in("192.0.2.66", "bounces@example.org", "example.org", plain),
		"no ptr":                in("192.0.2.99", "bounces@example.org", "example.org", plain),
		"bounce (helo checked)": in("192.0.2.10", "", "example.org", signed),
		"unknown dkim selector": in("192.0.2.10", "bounces@example.org", "example.org", []byte(strings.Replace(string(signed), "s=sel", "s=gone", 1))),
	}
}

// resultsJSON renders results for comparison, without the address of the
// DNS server that error details name.
func resultsJSON(t *testing.T, r model.AuthResults) string {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return serverInDetails.ReplaceAllString(string(data), " on SERVER: ")
}

var serverInDetails = regexp.MustCompile(` on \S+: `)

func newDNSResolver(t *testing.T, addr string, retransmit time.Duration) *dnsresolve.Resolver {
	t.Helper()
	r, err := dnsresolve.New(dnsresolve.Config{Servers: []string{addr}, QueryTimeout: 2 * time.Second, Retransmit: retransmit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// serverFailure answers SERVFAIL for every name under servfail.example.
func serverFailure(query *dns.Msg) []byte {
	if !dns.IsSubDomain("servfail.example.", query.Question[0].Name) {
		return nil
	}
	m := new(dns.Msg)
	m.SetRcode(query, dns.RcodeServerFailure)
	packed, err := m.Pack()
	if err != nil {
		panic(err)
	}
	return packed
}

// TestChecksWithDNSResolverMatchNetResolver runs every scenario against a
// DNS server that answers after a delay, with net's resolver and with a
// caching dnsresolve.Resolver (twice, the second time from its cache),
// and against a server that loses the first copy of every query: every
// result must be what net's resolver gets from the server that answers.
func TestChecksWithDNSResolverMatchNetResolver(t *testing.T) {
	key := newEd25519Key(t)
	signed := sign(t, testMessage("hello\n"), "example.org", "sel", key)
	zone := dnsZone(keyRecord(t, key))
	slow := dnstest.Start(t, dnstest.Options{Delay: 5 * time.Millisecond, NegativeTTL: 60, Raw: serverFailure}, zone...)
	lossy := dnstest.Start(t, dnstest.Options{NegativeTTL: 60, Raw: serverFailure, Drop: func(_ dns.Question, n int) bool { return n == 1 }}, zone...)
	today := Checker{Resolver: slow.Resolver()}
	cached := Checker{Resolver: newDNSResolver(t, slow.Addr, 0)}
	retransmitted := Checker{Resolver: newDNSResolver(t, lossy.Addr, 20*time.Millisecond)}
	ctx := context.Background()
	for name, in := range dnsScenarios(signed) {
		t.Run(name, func(t *testing.T) {
			want := resultsJSON(t, today.Check(ctx, in))
			if strings.Contains(want, "timeout") {
				t.Fatalf("net's resolver timed out: %s", want)
			}
			for round, checker := range []Checker{cached, cached, retransmitted} {
				if got := resultsJSON(t, checker.Check(ctx, in)); got != want {
					t.Fatalf("round %d:\ngot  %s\nwant %s", round, got, want)
				}
			}
		})
	}
}

// TestDroppedLookupsAreTemperror: against a server that answers nothing,
// the checks end within their budget with temperror "dns timeout", never
// a pass; the next mail gets the same at once (the failure is held down).
func TestDroppedLookupsAreTemperror(t *testing.T) {
	key := newEd25519Key(t)
	signed := sign(t, testMessage("hello\n"), "example.org", "sel", key)
	deaf := dnstest.Start(t, dnstest.Options{Drop: func(dns.Question, int) bool { return true }}, dnsZone(keyRecord(t, key))...)
	const queryTimeout = time.Second
	r, err := dnsresolve.New(dnsresolve.Config{Servers: []string{deaf.Addr}, QueryTimeout: queryTimeout, Retransmit: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const budget = 200 * time.Millisecond
	checker := Checker{Resolver: r, Budget: budget}
	in := dnsScenarios(signed)["all pass"]
	for round := range 3 {
		start := time.Now()
		got := checker.Check(context.Background(), in)
		took := time.Since(start)
		if took >= queryTimeout {
			t.Fatalf("round %d took %s: the checks waited for the queries, not their budget of %s", round, took, budget)
		}
		if got.SPF.Result != model.ResultTemperror || !strings.Contains(got.SPF.Details, "dns timeout") {
			t.Errorf("round %d: SPF %+v, want temperror (dns timeout)", round, *got.SPF)
		}
		if len(got.DKIM) != 1 || got.DKIM[0].Result != model.ResultTemperror || !strings.Contains(got.DKIM[0].Signature, "temperror (dns timeout)") {
			t.Errorf("round %d: DKIM %+v, want temperror (dns timeout)", round, got.DKIM)
		}
		if got.DMARC.Result == model.ResultPass || got.ReverseDNS.Result == model.ResultPass {
			t.Errorf("round %d: DMARC %+v, reverse DNS %+v: nothing may pass", round, *got.DMARC, *got.ReverseDNS)
		}
		if round == 0 {
			waitForHoldDown(t, r)
		}
	}
}

// waitForHoldDown waits until the resolver has given up the queries of a
// first check, so that the next checks meet remembered failures.
func waitForHoldDown(t *testing.T, r *dnsresolve.Resolver) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.Stats().Timeouts < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("queries never gave up: %+v", r.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRefusedLookupsAreTemperror: against a server that answers REFUSED,
// SPF, DKIM, DMARC and reverse DNS are temperror "dns refused", and the
// verdict is not verified.
func TestRefusedLookupsAreTemperror(t *testing.T) {
	key := newEd25519Key(t)
	signed := sign(t, testMessage("hello\n"), "example.org", "sel", key)
	refusing := dnstest.Start(t, dnstest.Options{Raw: func(query *dns.Msg) []byte {
		m := new(dns.Msg)
		m.SetRcode(query, dns.RcodeRefused)
		packed, err := m.Pack()
		if err != nil {
			panic(err)
		}
		return packed
	}}, dnsZone(keyRecord(t, key))...)
	checker := Checker{Resolver: newDNSResolver(t, refusing.Addr, 0)}
	got := checker.Check(context.Background(), dnsScenarios(signed)["all pass"])
	if got.SPF.Result != model.ResultTemperror || !strings.Contains(got.SPF.Details, "(dns refused)") ||
		len(got.DKIM) != 1 || got.DKIM[0].Result != model.ResultTemperror || !strings.Contains(got.DKIM[0].Signature, "(dns refused)") ||
		got.DMARC.Result != model.ResultTemperror || got.DMARC.Details != dnsRefused || got.ReverseDNS.Result != model.ResultTemperror {
		t.Fatalf("Check = %+v %+v %+v %+v", *got.SPF, got.DKIM, *got.DMARC, *got.ReverseDNS)
	}
	if v := got.Verdict(); v != model.VerdictNotVerified {
		t.Fatalf("verdict %q, want not verified", v.Word())
	}
}
