package model

import "strings"

// AuthVerdict is what the authentication results of an email add up to, in
// words a tester reads at a glance. It is the one verdict of sandview: the
// CLI, the TUI and search (auth:) all ask Verdict and print Word.
//
// SPF, DKIM (any signature) and DMARC decide; reverse DNS is reported but,
// as in the contract's Validate, never changes the verdict:
//   - pass: SPF, DKIM and DMARC passed (Validate().Passed);
//   - fail: one of them really failed (fail, softfail, permerror);
//   - not verified: nothing failed, but not all passed: no record (none) or
//     inconclusive (neutral, temperror, a word the contract does not name);
//   - not checked: the server skipped every check, or reported none.
type AuthVerdict int

// The verdicts, from the least to the most alarming.
const (
	VerdictNoResults   AuthVerdict = iota // the server reported no check (reads "not checked")
	VerdictNotChecked                     // every check was skipped
	VerdictPassed                         // SPF, DKIM and DMARC passed
	VerdictNotVerified                    // nothing failed, not everything passed
	VerdictFailed                         // a check really failed
)

// Verdict sums up a (Checks.Verdict).
func (a AuthResults) Verdict() AuthVerdict {
	var buf [8]Check
	return a.judged(&buf).Verdict()
}

// Verdict sums up the checks. It is the only place sandview decides what
// an email's authentication means: the checks that decide count, each by
// the kind of its result.
func (cs Checks) Verdict() AuthVerdict {
	if cs.passed() {
		return VerdictPassed
	}
	reported, skipped := 0, 0
	for _, c := range cs {
		if !c.Decides || !c.Reported {
			continue
		}
		reported++
		switch KindOfResult(c.Result) {
		case ResultKindFailed:
			return VerdictFailed
		case ResultKindSkipped:
			skipped++
		}
	}
	switch {
	case reported == 0:
		return VerdictNoResults
	case skipped == reported:
		return VerdictNotChecked
	}
	return VerdictNotVerified
}

// The words of the verdicts, as the CLI, the TUI, the JSON `verdict` field
// and docs/keys-and-search.md write them.
const (
	WordPass        = "pass"
	WordFail        = "fail"
	WordNotVerified = "not verified"
	WordNotChecked  = "not checked"
)

// Word is the verdict in words: pass, fail, not verified or not checked (no
// results read as not checked too; Explanation tells them apart).
func (v AuthVerdict) Word() string {
	return [...]string{WordNotChecked, WordNotChecked, WordPass, WordNotVerified, WordFail}[v]
}

// Heading is the word in capitals, after a symbol that keeps its meaning
// without colour.
func (v AuthVerdict) Heading() string {
	return [...]string{"-", "-", "✓", "~", "✗"}[v] + " " + strings.ToUpper(v.Word())
}

// Badge is the word cut to four cells for a narrow list column: pass,
// fail, "n/v" (not verified), "n/c" (not checked).
func (v AuthVerdict) Badge() string { return [...]string{"n/c", "n/c", "pass", "n/v", "fail"}[v] }

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

// KindOfResult classifies a check result, whatever its case.
func KindOfResult(result string) ResultKind {
	switch strings.ToLower(result) {
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
// temperror are inconclusive, permerror is a broken record (for DKIM, a
// broken signature or key), skipped is not checked.
func ResultMeaning(check, result string) string {
	switch strings.ToLower(result) {
	case ResultNone:
		if check == CheckDKIM {
			return "not signed"
		}
		return "no record"
	case ResultNeutral:
		return "inconclusive"
	case ResultTemperror:
		return "inconclusive, a temporary error"
	case ResultPermerror:
		if check == CheckDKIM {
			return "a broken signature or key"
		}
		return "a broken record"
	case ResultSkipped:
		return WordNotChecked
	}
	return ""
}
