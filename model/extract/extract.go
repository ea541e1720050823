// Package extract takes one value out of a mail for a script: its first
// link, the one-time code a human would type, or what a regular expression
// captures. It is what `sandview wait --extract` and the `codes` of
// `email show --json` use. It does no I/O.
package extract

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"sandview/model"
	"sandview/model/search"
)

// Extractor takes one value out of a mail. The zero Extractor takes nothing.
type Extractor struct {
	spec string
	re   *regexp.Regexp // nil for link and code
}

// Parse reads an extractor: "link" (the mail's first link, in the server's
// order: the one `email links` prints first), "code" (the first of Codes)
// or a regular expression (its first capture group, or the whole match when
// it has none), matched against the subject and then the body as text.
func Parse(spec string) (Extractor, error) {
	switch spec {
	case "link", "code":
		return Extractor{spec: spec}, nil
	case "":
		return Extractor{}, fmt.Errorf("give link, code or a regular expression")
	}
	re, err := regexp.Compile(spec)
	if err != nil {
		return Extractor{}, fmt.Errorf("%q is neither link, code nor a regular expression: %w", spec, err)
	}
	return Extractor{spec: spec, re: re}, nil
}

// String names what the extractor looks for, for messages: "link",
// "one-time code", "match of REGEX".
func (x Extractor) String() string {
	switch {
	case x.re != nil:
		return fmt.Sprintf("match of %q", x.spec)
	case x.spec == "link":
		return "link"
	case x.spec == "code":
		return "one-time code"
	}
	return "nothing"
}

// From is the value the extractor takes out of e, and whether there was one.
func (x Extractor) From(e model.Email) (string, bool) {
	switch {
	case x.re != nil:
		for _, text := range []string{e.Subject, search.BodyText(&e)} {
			if m := x.re.FindStringSubmatch(text); m != nil {
				if len(m) > 1 {
					return m[1], true
				}
				return m[0], true
			}
		}
	case x.spec == "link":
		if len(e.Links) > 0 {
			return e.Links[0], true
		}
	case x.spec == "code":
		if codes := Codes(e); len(codes) > 0 {
			return codes[0], true
		}
	}
	return "", false
}

// Codes are the one-time codes of e's subject and body (text, and HTML as
// text), the likeliest first: see CodesIn.
func Codes(e model.Email) []string {
	return CodesIn(e.Subject + "\n" + search.BodyText(&e))
}

var (
	// urlPattern finds links and addresses, whose parts are never codes.
	urlPattern = regexp.MustCompile(`(?i)\b(?:https?://|mailto:|www\.)\S+|\S+@\S+`)
	// keywordPattern finds the words a code comes with.
	keywordPattern = regexp.MustCompile(`(?i)\b(?:codes?|passcode|otp|pin|one[- ]time|verification|verify|2fa|mfa|security code|login code|token)\b`)
	// candidatePattern finds a word of 4-8 letters and digits.
	candidatePattern = regexp.MustCompile(`\b[A-Za-z0-9]{4,8}\b`)
)

const (
	maxAfterKeyword  = 40 // characters from the end of a keyword to a code after it
	maxBeforeKeyword = 20 // characters from the end of a code to a keyword after it
)

// CodesIn finds the codes a human would type in text: words of 4 to 8
// letters and digits, at least one a digit, at most 40 characters after a
// word such as code, OTP, PIN or verification (spaces and line breaks
// counted as one), or at most 20 before one ("123456 is your code"). Parts
// of links and addresses are never codes. The nearest after a keyword
// comes first, then the nearest before one; each code once.
func CodesIn(text string) []string {
	text = strings.Join(strings.Fields(urlPattern.ReplaceAllStringFunc(text, func(s string) string {
		return strings.Repeat(" ", len(s))
	})), " ")
	keywords := keywordPattern.FindAllStringIndex(text, -1)
	if len(keywords) == 0 {
		return nil
	}
	type scored struct {
		code  string
		score int
	}
	var found []scored
	for _, c := range candidatePattern.FindAllStringIndex(text, -1) {
		word := text[c[0]:c[1]]
		if !strings.ContainsAny(word, "0123456789") {
			continue
		}
		best := -1
		for _, k := range keywords {
			score := -1
			switch {
			case k[1] <= c[0] && c[0]-k[1] <= maxAfterKeyword:
				score = c[0] - k[1]
			case c[1] <= k[0] && k[0]-c[1] <= maxBeforeKeyword:
				score = maxAfterKeyword + 1 + k[0] - c[1]
			}
			if score >= 0 && (best < 0 || score < best) {
				best = score
			}
		}
		if best >= 0 {
			found = append(found, scored{code: word, score: best})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score < found[j].score })
	var codes []string
	seen := map[string]bool{}
	for _, f := range found {
		if !seen[f.code] {
			seen[f.code] = true
			codes = append(codes, f.code)
		}
	}
	return codes
}
