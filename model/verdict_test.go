package model

import (
	"slices"
	"strings"
	"testing"
)

// TestVerdictWordsOverEveryCombination pins the words of the one verdict
// over every combination of SPF, DKIM (one or two signatures) and DMARC
// results, each missing or any result the contract names, with reverse DNS
// missing, passing or failing (it never changes the verdict): pass when all
// three pass; fail when one really failed (fail, softfail, permerror); not
// checked when none was reported or all were skipped; not verified
// otherwise (no record, inconclusive). Mail from a sender with no records
// (every check none) is not verified, never fail.
func TestVerdictWordsOverEveryCombination(t *testing.T) {
	results := []string{"", ResultPass, ResultFail, ResultSoftfail, ResultNeutral, ResultNone, ResultTemperror, ResultPermerror, ResultSkipped}
	failed := func(r string) bool { return r == ResultFail || r == ResultSoftfail || r == ResultPermerror }
	n := 0
	for _, spf := range results {
		for _, dkim := range [][]string{{""}, {ResultPass}, {ResultFail}, {ResultSoftfail}, {ResultNeutral}, {ResultNone},
			{ResultTemperror}, {ResultPermerror}, {ResultSkipped}, {ResultFail, ResultPass}, {ResultNone, ResultFail}, {ResultSkipped, ResultNone}} {
			for _, dmarc := range results {
				for _, rdns := range []string{"", ResultPass, ResultFail} {
					var a AuthResults
					var reported []string // SPF, DKIM as one, DMARC
					if spf != "" {
						a.SPF = &SPFResult{Result: spf}
						reported = append(reported, spf)
					}
					if dkim[0] != "" {
						for _, r := range dkim {
							a.DKIM = append(a.DKIM, DKIMResult{Result: r})
						}
						switch {
						case slices.Contains(dkim, ResultPass):
							reported = append(reported, ResultPass)
						case slices.ContainsFunc(dkim, failed):
							reported = append(reported, ResultFail)
						case slices.ContainsFunc(dkim, func(r string) bool { return r != ResultSkipped }):
							reported = append(reported, ResultNone)
						default:
							reported = append(reported, ResultSkipped)
						}
					}
					if dmarc != "" {
						a.DMARC = &DMARCResult{Result: dmarc}
						reported = append(reported, dmarc)
					}
					if rdns != "" {
						a.ReverseDNS = &ReverseDNSResult{Result: rdns}
					}
					want := WordNotVerified
					switch {
					case len(reported) == 3 && !slices.ContainsFunc(reported, func(r string) bool { return r != ResultPass }):
						want = WordPass
					case slices.ContainsFunc(reported, failed):
						want = WordFail
					case !slices.ContainsFunc(reported, func(r string) bool { return r != ResultSkipped }):
						want = WordNotChecked
					}
					v := a.Verdict()
					if v.Word() != want {
						t.Errorf("SPF %q DKIM %q DMARC %q reverse DNS %q: %q, want %q", spf, dkim, dmarc, rdns, v.Word(), want)
					}
					badge := map[string]string{WordPass: "pass", WordFail: "fail", WordNotVerified: "n/v", WordNotChecked: "n/c"}[want]
					if !strings.HasSuffix(v.Heading(), strings.ToUpper(want)) || v.Badge() != badge || v.Explanation() == "" {
						t.Errorf("verdict %q: heading %q, badge %q", want, v.Heading(), v.Badge())
					}
					if (v == VerdictPassed) != a.Validate().Passed {
						t.Errorf("SPF %q DKIM %q DMARC %q: pass is not the contract's Validate().Passed", spf, dkim, dmarc)
					}
					n++
				}
			}
		}
	}
	if n != 9*12*9*3 {
		t.Fatalf("%d combinations", n)
	}
	none := AuthResults{SPF: &SPFResult{Result: ResultNone}, DKIM: []DKIMResult{{Result: ResultNone}},
		DMARC: &DMARCResult{Result: ResultNone}, ReverseDNS: &ReverseDNSResult{Result: ResultPass}}
	if got := none.Verdict().Word(); got != "not verified" {
		t.Fatalf("a sender without records reads %q", got)
	}
}

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
		{"DKIM", "permerror", "a broken signature or key"},
	} {
		if got := ResultMeaning(c.check, c.result); got != c.want {
			t.Errorf("ResultMeaning(%s, %s) = %q, want %q", c.check, c.result, got, c.want)
		}
	}
	if KindOfResult("softfail") != ResultKindFailed || KindOfResult("weird") != ResultKindInconclusive {
		t.Error("KindOfResult misclassifies")
	}
}
