package email

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"sandview/model"
	"sandview/model/termtext"
)

// authSummary is the verdict (model.Checks.Verdict, in its words) followed
// by each reported check's result in words, e.g. "not verified (SPF no
// record, DKIM not signed, DMARC no record, reverse DNS pass)".
func authSummary(a model.AuthResults) string {
	checks := a.Checks()
	verdict := checks.Verdict()
	var parts []string
	for _, c := range checks {
		if c.Reported {
			parts = append(parts, inRunningText(c.Name)+" "+resultWord(c.Name, c.Result))
		}
	}
	if verdict == model.VerdictNotChecked || len(parts) == 0 {
		return verdict.Word()
	}
	return verdict.Word() + " (" + strings.Join(parts, ", ") + ")"
}

// inRunningText is a check's name inside a sentence: a name that starts
// with a word ("Reverse DNS") starts in lower case, an acronym ("SPF")
// stays as it is.
func inRunningText(name string) string {
	first, size := utf8.DecodeRuneInString(name)
	if second, _ := utf8.DecodeRuneInString(name[size:]); unicode.IsLower(second) {
		return string(unicode.ToLower(first)) + name[size:]
	}
	return name
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
