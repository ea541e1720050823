package model

import "fmt"

// The states of a spam analysis (SpamAnalysis.Status).
const (
	SpamAnalyzed = "analyzed" // scored: Score, RequiredScore, Rules are set
	SpamSkipped  = "skipped"  // the server does not analyse mail (Info says why)
	SpamError    = "error"    // the analyser failed or was too slow (Info says how)
)

// SpamAnalysis is the spam score of an email, in its parsed content as
// `spamAnalysis` (the reference deployment's field: `{status, info}` when
// it does not analyse). sandview's server fills it from SpamAssassin's
// spamd (serve --spamd).
type SpamAnalysis struct {
	Status        string     `json:"status"`
	Score         float64    `json:"score,omitempty"`
	RequiredScore float64    `json:"requiredScore,omitempty"`
	IsSpam        bool       `json:"isSpam,omitempty"`
	Rules         []SpamRule `json:"rules,omitempty"`
	Info          string     `json:"info,omitempty"`
}

// SpamRule is one rule that fired, with the points it added.
type SpamRule struct {
	Name        string  `json:"name"`
	Score       float64 `json:"score"`
	Description string  `json:"description,omitempty"`
}

// SpamSummary is one line about a spam analysis: the score against the
// threshold, or why there is none (nil: the server scores nothing).
func SpamSummary(a *SpamAnalysis) string {
	switch {
	case a == nil:
		return "not scored: the server does not run SpamAssassin (start it with sandview serve --spamd HOST:PORT)"
	case a.Status == SpamAnalyzed:
		verdict := "not spam"
		if a.IsSpam {
			verdict = "SPAM"
		}
		return fmt.Sprintf("%.1f points, %.1f required: %s", a.Score, a.RequiredScore, verdict)
	case a.Info != "":
		return "not scored: " + a.Info
	}
	return "not scored (" + a.Status + ")"
}
