package emailauth

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
)

func TestStaticResolver(t *testing.T) {
	ctx := context.Background()
	r := StaticResolver{
		TXT: map[string][]string{"example.org": {"v=spf1 -all"}},
		MX:  map[string][]*net.MX{"example.org": {{Host: "mx.example.org.", Pref: 10}}},
		A:   map[string][]net.IPAddr{"mx.example.org": {{IP: clientIP}}},
		PTR: map[string][]string{"127.0.0.1": {"mx.example.org."}, "2001:db8::1": {"v6.example.org."}},
	}
	if got, err := r.LookupTXT(ctx, "Example.ORG."); err != nil || !slices.Equal(got, []string{"v=spf1 -all"}) {
		t.Errorf("LookupTXT = %q, %v", got, err)
	}
	if got, err := r.LookupMX(ctx, "example.org"); err != nil || len(got) != 1 || got[0].Host != "mx.example.org." {
		t.Errorf("LookupMX = %v, %v", got, err)
	}
	if got, err := r.LookupIPAddr(ctx, "mx.example.org."); err != nil || len(got) != 1 || !got[0].IP.Equal(clientIP) {
		t.Errorf("LookupIPAddr = %v, %v", got, err)
	}
	if got, err := r.LookupAddr(ctx, "2001:0db8:0:0::1"); err != nil || !slices.Equal(got, []string{"v6.example.org."}) {
		t.Errorf("LookupAddr(v6) = %q, %v", got, err)
	}
	_, err := r.LookupTXT(ctx, "unknown.example")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Errorf("unknown name error = %#v, want a not-found *net.DNSError", err)
	}
	got, _ := r.LookupTXT(ctx, "example.org")
	got[0] = "changed"
	if again, _ := r.LookupTXT(ctx, "example.org"); again[0] != "v=spf1 -all" {
		t.Error("callers can change the resolver's records")
	}
}
