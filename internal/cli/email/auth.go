package email

import (
	"strings"

	"sandview/model"
	"sandview/model/termtext"
)

// authSummary is the verdict (model.AuthResults.Verdict, in its words)
// followed by each check's result in words, e.g. "not verified (SPF no
// record, DKIM not signed, DMARC no record, reverse DNS pass)".
func authSummary(a model.AuthResults) string {
	verdict := a.Verdict()
	checks := authChecks(a)
	if verdict == model.VerdictNotChecked || len(checks) == 0 {
		return verdict.Word()
	}
	parts := make([]string, len(checks))
	for i, c := range checks {
		parts[i] = c.name + " " + resultWord(c.name, c.result)
	}
	return verdict.Word() + " (" + strings.Join(parts, ", ") + ")"
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

// resultWord is a check result in the words people read it in
// (model.ResultMeaning, its first clause): none is "no record" ("not
// signed" for DKIM), neutral and temperror are "inconclusive", skipped is
// "not checked".
func resultWord(check, result string) string {
	if result == "" {
		return "no result"
	}
	if meaning, _, _ := strings.Cut(model.ResultMeaning(check, result), ","); meaning != "" {
		return meaning
	}
	return termtext.SanitizeLine(result)
}
