package mail

import (
	"charm.land/lipgloss/v2"

	"sandview/model"
	"sandview/theme"
)

// verdict is what the authentication results of an email add up to. It
// follows the contract's Validate: passed when SPF, DKIM and DMARC pass;
// otherwise failed when a check really failed (fail, softfail,
// permerror), not verified when the others only found no record or were
// inconclusive (none, neutral, temperror), not checked when the server
// skipped every check.
type verdict int

const (
	verdictNoResults verdict = iota // the server reported no check
	verdictNotChecked
	verdictPassed
	verdictNotVerified
	verdictFailed
)

// verdictOf sums up a.
func verdictOf(a model.AuthResults) verdict {
	v := a.Validate()
	switch {
	case v.Passed:
		return verdictPassed
	case a.SPF == nil && len(a.DKIM) == 0 && a.DMARC == nil && a.ReverseDNS == nil:
		return verdictNoResults
	case len(v.Failures) == 0 && !v.SPFPassed && !v.DKIMPassed && !v.DMARCPassed && !v.ReverseDNSPassed:
		return verdictNotChecked
	case hardFailure(a, v):
		return verdictFailed
	}
	return verdictNotVerified
}

// hardFailure reports a check whose result is a real failure; DKIM counts
// only when no signature passed.
func hardFailure(a model.AuthResults, v model.AuthValidation) bool {
	var results []string
	if a.SPF != nil {
		results = append(results, a.SPF.Result)
	}
	if !v.DKIMPassed {
		for _, d := range a.DKIM {
			results = append(results, d.Result)
		}
	}
	if a.DMARC != nil {
		results = append(results, a.DMARC.Result)
	}
	if a.ReverseDNS != nil {
		results = append(results, a.ReverseDNS.Result)
	}
	for _, r := range results {
		if resultKindOf(r) == resultFailed {
			return true
		}
	}
	return false
}

// heading is the verdict in words, with a symbol that keeps its meaning
// without colour; badge is its short form for the email list.
func (v verdict) heading() string {
	return [...]string{"- NO RESULTS", "- NOT CHECKED", "✓ PASSED", "~ NOT VERIFIED", "✗ FAILED"}[v]
}

func (v verdict) badge() string { return [...]string{"n/a", "skip", "pass", "warn", "FAIL"}[v] }

// explanation says why, in a few words.
func (v verdict) explanation() string {
	return [...]string{
		"the server reported no authentication results",
		"the server skipped every check",
		"SPF, DKIM and DMARC passed",
		"no check failed, but not all passed: no record, or inconclusive",
		"a check failed",
	}[v]
}

// style is the theme's colour of the verdict.
func (v verdict) style(st *theme.Styles) lipgloss.Style {
	return [...]lipgloss.Style{st.AuthSkipped, st.AuthSkipped, st.AuthPass, st.AuthWarn, st.AuthFail}[v]
}

// resultKind is what a check result means to the reader.
type resultKind int

const (
	resultPassed resultKind = iota
	resultFailed
	resultInconclusive // none, neutral, temperror, or a value the contract does not name
	resultSkipped
)

func resultKindOf(result string) resultKind {
	switch result {
	case model.ResultPass:
		return resultPassed
	case model.ResultFail, model.ResultSoftfail, model.ResultPermerror:
		return resultFailed
	case model.ResultSkipped:
		return resultSkipped
	}
	return resultInconclusive
}

// resultText is a check's result in the theme's colour, with a symbol that
// keeps its meaning without colour and, when it is not plain, what it
// means: none is "no record" (for DKIM, "not signed"), neutral and
// temperror are inconclusive. No result is "not reported".
func resultText(st *theme.Styles, check, result string) string {
	if result == "" {
		return st.AuthSkipped.Render("- not reported")
	}
	meaning := ""
	switch result {
	case model.ResultNone:
		meaning = "no record"
		if check == "DKIM" {
			meaning = "not signed"
		}
	case model.ResultNeutral:
		meaning = "inconclusive"
	case model.ResultTemperror:
		meaning = "inconclusive, a temporary error"
	case model.ResultPermerror:
		meaning = "a broken record"
	}
	if meaning != "" {
		meaning = " (" + meaning + ")"
	}
	switch resultKindOf(result) {
	case resultPassed:
		return st.AuthPass.Render("✓ " + result)
	case resultFailed:
		return st.AuthFail.Render("✗ "+result) + st.Muted.Render(meaning)
	case resultSkipped:
		return st.AuthSkipped.Render("- " + result)
	}
	return st.AuthWarn.Render("~ "+result) + st.Muted.Render(meaning)
}
