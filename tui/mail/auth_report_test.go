package mail

import (
	"strings"
	"testing"

	"sandview/model"
	"sandview/tui/tuitest"
)

// TestAuthReportOfAnUnansweredDNS: a mail whose checks the DNS did not
// answer reads "not verified" (never fail) in the pane, which says why;
// each check shows temperror as inconclusive.
func TestAuthReportOfAnUnansweredDNS(t *testing.T) {
	ctx := tuitest.Context(true)
	m := model.Email{ID: "e1", HasContent: true, AuthResults: model.AuthResults{
		SPF:        &model.SPFResult{Result: model.ResultPass, Details: "spf=pass smtp.mailfrom=a@example.org"},
		DKIM:       []model.DKIMResult{{Result: model.ResultTemperror, Domain: "example.org", Signature: "dkim=temperror (dns timeout) header.d=example.org"}},
		DMARC:      &model.DMARCResult{Result: model.ResultTemperror, Domain: "example.org", Details: "dns timeout"},
		ReverseDNS: &model.ReverseDNSResult{Result: model.ResultTemperror, IP: "192.0.2.1"},
	}}
	line := tuitest.Plain(verdictLine(ctx.Styles(), m))
	if want := "~ NOT VERIFIED  DKIM: the DNS did not answer; DMARC: the DNS did not answer"; line != want {
		t.Errorf("verdict line %q, want %q", line, want)
	}
	report := tuitest.Plain(strings.Join(authReportLines(ctx, m, 120), "\n"))
	for _, want := range []string{"DKIM         ~ temperror (inconclusive, a temporary error)", "Reverse DNS  ~ temperror", "DMARC        ~ temperror", "domain example.org · dns timeout"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "✗") {
		t.Errorf("the report shows a failure:\n%s", report)
	}
}
