package emailauth

import (
	"context"
	"net"
	"strings"
	"testing"

	"sandview/model"
)

func TestCheckSPF(t *testing.T) {
	dns := StaticResolver{TXT: map[string][]string{
		"pass.example":     {"v=spf1 ip4:127.0.0.1 -all"},
		"soft.example":     {"v=spf1 ip4:192.0.2.0/24 ~all"},
		"neutral.example":  {"v=spf1 ?all"},
		"broken.example":   {"v=spf1 ip4:not-an-address -all"},
		"twice.example":    {"v=spf1 -all", "v=spf1 +all"},
		"other.example":    {"some unrelated text"},
		"helo.example":     {"v=spf1 ip4:127.0.0.1 -all"},
		"redirect.example": {"v=spf1 redirect=pass.example"},
	}}
	tests := []struct {
		name        string
		in          Input
		want        string
		wantDomain  string
		wantDetails string
	}{
		{"pass", Input{RemoteIP: clientIP, MailFrom: "a@pass.example"}, model.ResultPass, "pass.example",
			"spf=pass smtp.mailfrom=a@pass.example (matched ip)"},
		{"fail", Input{RemoteIP: otherIP, MailFrom: "a@pass.example"}, model.ResultFail, "pass.example",
			"spf=fail smtp.mailfrom=a@pass.example"},
		{"softfail", Input{RemoteIP: clientIP, MailFrom: "a@soft.example"}, model.ResultSoftfail, "soft.example",
			"spf=softfail"},
		{"neutral", Input{RemoteIP: clientIP, MailFrom: "a@neutral.example"}, model.ResultNeutral, "neutral.example",
			"spf=neutral"},
		{"none without record", Input{RemoteIP: clientIP, MailFrom: "a@nothing.example"}, model.ResultNone, "nothing.example",
			"spf=none"},
		{"none with unrelated TXT", Input{RemoteIP: clientIP, MailFrom: "a@other.example"}, model.ResultNone, "other.example",
			"spf=none"},
		{"permerror bad mechanism", Input{RemoteIP: clientIP, MailFrom: "a@broken.example"}, model.ResultPermerror, "broken.example",
			"spf=permerror"},
		{"permerror two records", Input{RemoteIP: clientIP, MailFrom: "a@twice.example"}, model.ResultPermerror, "twice.example",
			"spf=permerror"},
		{"redirect", Input{RemoteIP: clientIP, MailFrom: "<a@redirect.example>"}, model.ResultPass, "redirect.example",
			"spf=pass smtp.mailfrom=a@redirect.example"},
		{"bounce uses HELO", Input{RemoteIP: clientIP, Helo: "helo.example"}, model.ResultPass, "helo.example",
			"spf=pass smtp.helo=helo.example"},
		{"bounce with address-literal HELO", Input{RemoteIP: clientIP, Helo: "[127.0.0.1]"}, model.ResultNone, "[127.0.0.1]",
			"spf=none (no domain to check)"},
		{"no client address", Input{MailFrom: "a@pass.example"}, model.ResultNone, "pass.example",
			"spf=none (no client address)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkSPF(context.Background(), newBoundedResolver(dns), tt.in)
			if got.Result != tt.want || got.Domain != tt.wantDomain || !strings.HasPrefix(got.Details, tt.wantDetails) {
				t.Errorf("checkSPF = %+v, want result %s domain %s details starting %q", got, tt.want, tt.wantDomain, tt.wantDetails)
			}
			if tt.in.RemoteIP != nil && got.IP != tt.in.RemoteIP.String() {
				t.Errorf("IP = %q", got.IP)
			}
		})
	}
}

func TestCheckSPFTimeoutIsTemperror(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := checkSPF(ctx, newBoundedResolver(blockingResolver{}), Input{RemoteIP: net.ParseIP("::1"), MailFrom: "a@pass.example"})
	if got.Result != model.ResultTemperror || !strings.Contains(got.Details, "check canceled") {
		t.Errorf("checkSPF = %+v, want temperror (check canceled)", got)
	}
}
