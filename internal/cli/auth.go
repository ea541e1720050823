package cli

import (
	"strings"

	"sandview/model"
)

// Verdicts of an email's authentication (authVerdict).
const (
	verdictPass       = "pass"
	verdictFail       = "fail"
	verdictNotChecked = "not checked"
	verdictPartial    = "incomplete"
	verdictNone       = "no results"
)

// authVerdict sums up an email's authentication as model.AuthResults
// Validate does: pass when SPF, DKIM and DMARC pass, fail when a check did
// not, "not checked" when the server skipped every check (an inbox without
// emailAuth: nothing failed), incomplete when some were skipped or not
// reported and the rest passed, "no results" when the server reported none.
func authVerdict(a model.AuthResults) string {
	v := a.Validate()
	checks := authChecks(a)
	switch {
	case v.Passed:
		return verdictPass
	case len(v.Failures) > 0:
		return verdictFail
	case len(checks) == 0:
		return verdictNone
	case len(v.Skipped) == len(checks):
		return verdictNotChecked
	}
	return verdictPartial
}

// authSummary is the verdict followed by each check's result in words,
// e.g. "fail (SPF fail, DKIM pass, DMARC no record, reverse DNS
// inconclusive)".
func authSummary(a model.AuthResults) string {
	verdict := authVerdict(a)
	checks := authChecks(a)
	if verdict == verdictNotChecked || len(checks) == 0 {
		return verdict
	}
	parts := make([]string, len(checks))
	for i, c := range checks {
		parts[i] = c.name + " " + resultWord(c.result)
	}
	return verdict + " (" + strings.Join(parts, ", ") + ")"
}

// authCheck is one check's name and result.
type authCheck struct{ name, result string }

// authChecks lists the checks the server reported, DKIM as passing when
// one signature passed.
func authChecks(a model.AuthResults) []authCheck {
	var out []authCheck
	if a.SPF != nil {
		out = append(out, authCheck{"SPF", a.SPF.Result})
	}
	if len(a.DKIM) > 0 {
		result := a.DKIM[0].Result
		if a.Validate().DKIMPassed {
			result = model.ResultPass
		}
		out = append(out, authCheck{"DKIM", result})
	}
	if a.DMARC != nil {
		out = append(out, authCheck{"DMARC", a.DMARC.Result})
	}
	if a.ReverseDNS != nil {
		out = append(out, authCheck{"reverse DNS", a.ReverseDNS.Result})
	}
	return out
}

// resultWord is a check result in the words people read it in: none is
// "no record" (the domain publishes nothing), neutral and temperror are
// "inconclusive", skipped is "not checked".
func resultWord(result string) string {
	switch result {
	case model.ResultNone:
		return "no record"
	case model.ResultNeutral, model.ResultTemperror:
		return "inconclusive"
	case model.ResultSkipped:
		return verdictNotChecked
	case "":
		return "no result"
	}
	return model.SanitizeLine(result)
}
