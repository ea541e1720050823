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

// Reasons says why the verdict is not pass: one "CHECK: why" for each of
// SPF, DKIM and DMARC that did not pass and was not skipped, e.g. "DKIM:
// the DNS did not answer" (temperror) or "DMARC: a broken record (invalid
// policy for parameter 'p')" (permerror). It is empty when the verdict is
// pass or nothing was checked. Reverse DNS, which never changes the
// verdict, is not listed.
func (a AuthResults) Reasons() []string {
	if v := a.Verdict(); v == VerdictPassed || v == VerdictNoResults || v == VerdictNotChecked {
		return nil
	}
	var out []string
	add := func(check, result, reason string) {
		switch KindOfResult(result) {
		case ResultKindPassed, ResultKindSkipped:
			return
		}
		out = append(out, check+": "+CheckReason(check, result, reason))
	}
	if a.SPF != nil {
		add("SPF", a.SPF.Result, detailReason(a.SPF.Details))
	}
	if len(a.DKIM) > 0 && !a.anyDKIMPassed() {
		d := decidingDKIM(a.DKIM)
		add("DKIM", d.Result, detailReason(d.Signature))
	}
	if a.DMARC != nil {
		add("DMARC", a.DMARC.Result, a.DMARC.Details)
	}
	return out
}

// decidingDKIM is the signature whose result decides DKIM's kind when none
// passed: the first that failed, else the first inconclusive one.
func decidingDKIM(sigs []DKIMResult) DKIMResult {
	kind := dkimKind(sigs)
	for _, d := range sigs {
		if KindOfResult(d.Result) == kind {
			return d
		}
	}
	return sigs[0]
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
