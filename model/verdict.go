package model

// AuthVerdict is what the authentication results of an email add up to, in
// words a tester reads at a glance. It follows the contract's Validate:
// passed when SPF, DKIM and DMARC pass; otherwise failed when a check really
// failed (fail, softfail, permerror), not verified when the others only
// found no record or were inconclusive (none, neutral, temperror), not
// checked when the server skipped every check.
type AuthVerdict int

// The verdicts, from the least to the most alarming.
const (
	VerdictNoResults   AuthVerdict = iota // the server reported no check
	VerdictNotChecked                     // every check was skipped
	VerdictPassed                         // SPF, DKIM and DMARC passed
	VerdictNotVerified                    // nothing failed, not everything passed
	VerdictFailed                         // a check really failed
)

// Verdict sums up a.
func (a AuthResults) Verdict() AuthVerdict {
	v := a.Validate()
	switch {
	case v.Passed:
		return VerdictPassed
	case a.SPF == nil && len(a.DKIM) == 0 && a.DMARC == nil && a.ReverseDNS == nil:
		return VerdictNoResults
	case len(v.Failures) == 0 && !v.SPFPassed && !v.DKIMPassed && !v.DMARCPassed && !v.ReverseDNSPassed:
		return VerdictNotChecked
	case a.hasHardFailure(v.DKIMPassed):
		return VerdictFailed
	}
	return VerdictNotVerified
}

// hasHardFailure reports a check whose result is a real failure; DKIM counts
// only when no signature passed.
func (a AuthResults) hasHardFailure(dkimPassed bool) bool {
	var results []string
	if a.SPF != nil {
		results = append(results, a.SPF.Result)
	}
	if !dkimPassed {
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
		if KindOfResult(r) == ResultKindFailed {
			return true
		}
	}
	return false
}

// Heading is the verdict in capitals, after a symbol that keeps its meaning
// without colour.
func (v AuthVerdict) Heading() string {
	return [...]string{"- NO RESULTS", "- NOT CHECKED", "✓ PASSED", "~ NOT VERIFIED", "✗ FAILED"}[v]
}

// Badge is the verdict's short form for a list column.
func (v AuthVerdict) Badge() string { return [...]string{"n/a", "skip", "pass", "warn", "FAIL"}[v] }

// Explanation says why, in a few words.
func (v AuthVerdict) Explanation() string {
	return [...]string{
		"the server reported no authentication results",
		"the server skipped every check",
		"SPF, DKIM and DMARC passed",
		"no check failed, but not all passed: no record, or inconclusive",
		"a check failed",
	}[v]
}

// ResultKind is what one check result means to the reader.
type ResultKind int

// The kinds of check result.
const (
	ResultKindPassed       ResultKind = iota
	ResultKindFailed                  // fail, softfail, permerror
	ResultKindInconclusive            // none, neutral, temperror, or a value the contract does not name
	ResultKindSkipped
)

// KindOfResult classifies a check result.
func KindOfResult(result string) ResultKind {
	switch result {
	case ResultPass:
		return ResultKindPassed
	case ResultFail, ResultSoftfail, ResultPermerror:
		return ResultKindFailed
	case ResultSkipped:
		return ResultKindSkipped
	}
	return ResultKindInconclusive
}

// ResultMeaning is what a result that is not plain means ("" when it is
// plain): none is "no record" (for DKIM, "not signed"), neutral and
// temperror are inconclusive, permerror is a broken record.
func ResultMeaning(check, result string) string {
	switch result {
	case ResultNone:
		if check == "DKIM" {
			return "not signed"
		}
		return "no record"
	case ResultNeutral:
		return "inconclusive"
	case ResultTemperror:
		return "inconclusive, a temporary error"
	case ResultPermerror:
		return "a broken record"
	}
	return ""
}
