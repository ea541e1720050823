package email

import (
	"testing"

	"sandview/model"
)

func TestAuthSummaryWording(t *testing.T) {
	all := func(spf, dkim, dmarc, rdns string) model.AuthResults {
		return model.AuthResults{SPF: &model.SPFResult{Result: spf}, DKIM: []model.DKIMResult{{Result: dkim}},
			DMARC: &model.DMARCResult{Result: dmarc}, ReverseDNS: &model.ReverseDNSResult{Result: rdns}}
	}
	for _, c := range []struct {
		results model.AuthResults
		want    string
	}{
		{all("pass", "pass", "pass", "pass"), "pass (SPF pass, DKIM pass, DMARC pass, reverse DNS pass)"},
		{all("neutral", "fail", "none", "temperror"), "fail (SPF inconclusive, DKIM fail, DMARC no record, reverse DNS inconclusive)"},
		{all("skipped", "skipped", "skipped", "skipped"), "not checked"},
		{all("pass", "skipped", "pass", "pass"), "not verified (SPF pass, DKIM not checked, DMARC pass, reverse DNS pass)"},
		{model.AuthResults{}, "not checked"},
		{all("none", "none", "none", "pass"), "not verified (SPF no record, DKIM not signed, DMARC no record, reverse DNS pass)"},
		{model.AuthResults{DKIM: []model.DKIMResult{{Result: "fail"}, {Result: "pass"}}}, "not verified (DKIM pass)"},
		// The signature that decides the verdict, not the first.
		{model.AuthResults{DKIM: []model.DKIMResult{{Result: "none"}, {Result: "fail"}}}, "fail (DKIM fail)"},
	} {
		if got := authSummary(c.results); got != c.want {
			t.Errorf("authSummary = %q, want %q", got, c.want)
		}
	}
}
