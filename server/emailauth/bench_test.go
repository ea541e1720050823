package emailauth

import (
	"context"
	"net"
	"testing"

	"sandview/server/dnsresolve"
	"sandview/server/dnsresolve/dnstest"
)

func BenchmarkCheckStatic(b *testing.B) {
	key := newEd25519Key(b)
	checker := Checker{Resolver: demoResolver(keyRecord(b, key))}
	in := Input{
		Raw:        sign(b, testMessage("Hello Bob,\nthe parcel ships today.\n"), "example.org", "sel", key),
		RemoteIP:   clientIP,
		Helo:       "mail.example.org",
		MailFrom:   "bounces@example.org",
		FromDomain: "example.org",
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if got := checker.Check(ctx, in); got.DMARC.Result != "pass" {
			b.Fatalf("DMARC = %+v", *got.DMARC)
		}
	}
}

// BenchmarkCheckCachedDNS is the cost of the checks of an unsigned mail
// from a sender domain whose records a dnsresolve.Resolver has cached, as
// for nearly every mail of a test run.
func BenchmarkCheckCachedDNS(b *testing.B) {
	srv := dnstest.Start(b, dnstest.Options{NegativeTTL: 300},
		`example.org. 300 IN TXT "v=spf1 ip4:192.0.2.0/24 -all"`,
		`_dmarc.example.org. 300 IN TXT "v=DMARC1; p=none"`,
		`10.2.0.192.in-addr.arpa. 300 IN PTR mail.example.org.`,
		`mail.example.org. 300 IN A 192.0.2.10`)
	r, err := dnsresolve.New(dnsresolve.Config{Servers: []string{srv.Addr}})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	checker := Checker{Resolver: r}
	in := Input{
		Raw:        testMessage("Hello Bob,\nthe parcel ships today.\n"),
		RemoteIP:   net.ParseIP("192.0.2.10"),
		Helo:       "mail.example.org",
		MailFrom:   "bounces@example.org",
		FromDomain: "example.org",
	}
	ctx := context.Background()
	checker.Check(ctx, in)
	b.ReportAllocs()
	for b.Loop() {
		if got := checker.Check(ctx, in); got.SPF.Result != "pass" || got.ReverseDNS.Result != "pass" {
			b.Fatalf("SPF = %+v, reverse DNS = %+v", *got.SPF, *got.ReverseDNS)
		}
	}
}
