package model

import "testing"

func TestVerdicts(t *testing.T) {
	res := func(spf, dkim, dmarc string) AuthResults {
		return AuthResults{SPF: &SPFResult{Result: spf}, DKIM: []DKIMResult{{Result: dkim}}, DMARC: &DMARCResult{Result: dmarc}}
	}
	cases := []struct {
		auth AuthResults
		want AuthVerdict
	}{
		{res("pass", "pass", "pass"), VerdictPassed},
		{res("none", "none", "none"), VerdictNotVerified},
		{res("neutral", "pass", "temperror"), VerdictNotVerified},
		{res("softfail", "none", "none"), VerdictFailed},
		{res("pass", "permerror", "pass"), VerdictFailed},
		{res("skipped", "skipped", "skipped"), VerdictNotChecked},
		{res("pass", "skipped", "skipped"), VerdictNotVerified},
		{AuthResults{}, VerdictNoResults},
		{AuthResults{DKIM: []DKIMResult{{Result: "fail"}, {Result: "pass"}}, SPF: &SPFResult{Result: "pass"},
			DMARC: &DMARCResult{Result: "pass"}, ReverseDNS: &ReverseDNSResult{Result: "fail"}}, VerdictPassed},
	}
	for _, c := range cases {
		if got := c.auth.Verdict(); got != c.want {
			t.Errorf("%+v: verdict %q, want %q", c.auth.Validate(), got.Heading(), c.want.Heading())
		}
	}
}

func TestResultMeaning(t *testing.T) {
	for _, c := range []struct{ check, result, want string }{
		{"SPF", "none", "no record"},
		{"DKIM", "none", "not signed"},
		{"DMARC", "neutral", "inconclusive"},
		{"SPF", "pass", ""},
		{"SPF", "permerror", "a broken record"},
	} {
		if got := ResultMeaning(c.check, c.result); got != c.want {
			t.Errorf("ResultMeaning(%s, %s) = %q, want %q", c.check, c.result, got, c.want)
		}
	}
	if KindOfResult("softfail") != ResultKindFailed || KindOfResult("weird") != ResultKindInconclusive {
		t.Error("KindOfResult misclassifies")
	}
}
