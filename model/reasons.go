package model

import "strings"

// The words of a failed DNS lookup in a check's details, as the embedded
// server's checks write them, and what a reader is told each means.
var dnsFailureWords = map[string]string{
	"dns timeout":        "the DNS did not answer",
	"dns refused":        "the DNS refused the query",
	"dns server failure": "the DNS server failed",
	"check canceled":     "the check was cut short",
}

// Reasons says why the verdict of a is not pass (Checks.Reasons).
func (a AuthResults) Reasons() []string {
	var buf [8]Check
	return a.judged(&buf).Reasons()
}

// Reasons says why the verdict is not pass: one "CHECK: why" for each
// check that decides, was reported and neither passed nor was skipped, e.g.
// "DKIM: the DNS did not answer" (temperror) or "DMARC: a broken record
// (invalid policy for parameter 'p')" (permerror). It is empty when the
// verdict is pass or nothing was checked. Reverse DNS, which never changes
// the verdict, is not listed.
func (cs Checks) Reasons() []string {
	if v := cs.Verdict(); v == VerdictPassed || v == VerdictNoResults || v == VerdictNotChecked {
		return nil
	}
	var out []string
	for _, c := range cs {
		if !c.Decides || !c.Reported {
			continue
		}
		switch KindOfResult(c.Result) {
		case ResultKindPassed, ResultKindSkipped:
			continue
		}
		out = append(out, c.Name+": "+CheckReason(c.Name, c.Result, c.Reason))
	}
	return out
}

// CheckReason is why one check has its result, in words: for temperror
// what the DNS did when reason names it ("the DNS did not answer"), else
// what the result means (ResultMeaning, or the result itself) followed by
// the reason in parentheses.
func CheckReason(check, result, reason string) string {
	if strings.EqualFold(result, ResultTemperror) {
		if words, ok := dnsFailureWords[strings.ToLower(reason)]; ok {
			return words
		}
	}
	what := ResultMeaning(check, result)
	if what == "" {
		what = orNone(strings.ToLower(result))
	}
	if reason != "" && !strings.Contains(strings.ToLower(reason), what) {
		what += " (" + reason + ")" // not "not signed (message not signed)"
	}
	return what
}

// detailReason is the reason an Authentication-Results-like details string
// gives in parentheses ("dkim=temperror (dns timeout) header.d=…" gives
// "dns timeout"), or "".
func detailReason(details string) string {
	_, after, found := strings.Cut(details, "(")
	if !found {
		return ""
	}
	reason, _, found := strings.Cut(after, ")")
	if !found {
		return ""
	}
	return strings.TrimSpace(reason)
}
