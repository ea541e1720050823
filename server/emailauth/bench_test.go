package emailauth

import (
	"context"
	"testing"
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
