package emailauth

import (
	"context"
	"net"
	"testing"

	"sandview/model"
)

func TestCheckReverseDNS(t *testing.T) {
	v6 := net.ParseIP("2001:db8::25")
	dns := newBoundedResolver(StaticResolver{
		PTR: map[string][]string{
			"127.0.0.1":    {"unconfirmed.example.org.", "mail.example.org."},
			"192.0.2.9":    {"liar.example.net."},
			"2001:db8::25": {"v6.example.org."},
		},
		A: map[string][]net.IPAddr{
			"mail.example.org": {{IP: net.ParseIP("10.0.0.1")}, {IP: clientIP}},
			"liar.example.net": {{IP: net.ParseIP("198.51.100.1")}},
			"v6.example.org":   {{IP: v6}},
		},
	})
	tests := []struct {
		name string
		ip   net.IP
		want model.ReverseDNSResult
	}{
		{"pass via the second PTR name", clientIP, model.ReverseDNSResult{Result: model.ResultPass, IP: "127.0.0.1", Hostname: "mail.example.org"}},
		{"pass IPv6", v6, model.ReverseDNSResult{Result: model.ResultPass, IP: "2001:db8::25", Hostname: "v6.example.org"}},
		{"fail when the name resolves elsewhere", otherIP, model.ReverseDNSResult{Result: model.ResultFail, IP: "192.0.2.9", Hostname: "liar.example.net"}},
		{"none without PTR", net.ParseIP("203.0.113.7"), model.ReverseDNSResult{Result: model.ResultNone, IP: "203.0.113.7"}},
		{"none without address", nil, model.ReverseDNSResult{Result: model.ResultNone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkReverseDNS(context.Background(), dns, tt.ip); *got != tt.want {
				t.Errorf("checkReverseDNS = %+v, want %+v", *got, tt.want)
			}
		})
	}
}
