// Package expect asserts what a team cares about in one mail, for CI
// (`sandview email expect`) and for coding agents (`sandview mcp`): the
// subject, sender and recipients, the authentication verdict, the HTML
// compatibility score, the links, the spam score, Gmail's clipping size, a
// text part, List-Unsubscribe, alt text on images, no remote fonts or
// scripts, and a golden snapshot of the template (Snapshot, Golden). Each
// assertion is a named Result saying what was expected and what was found;
// a Report holds them and writes itself as JUnit XML. Only Options.Links
// goes to the network (client/linkcheck, with its address guard).
package expect

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"sandview/model"
)

// The assertions' names, as the table, --json, JUnit and --skip name them.
const (
	Subject         = "subject"
	From            = "from"
	To              = "to"
	Verdict         = "verdict"
	Compat          = "compat"
	Links           = "links"
	Spam            = "spam"
	HTMLSize        = "html-size"
	TextPart        = "text-part"
	ListUnsubscribe = "list-unsubscribe"
	ImageAlt        = "image-alt"
	RemoteContent   = "remote-fonts-scripts"
	DeceptiveLinks  = "deceptive-links"
	GoldenName      = "golden"
)

// standardNames are the assertions that run with no option: none needs
// the network.
var standardNames = []string{Verdict, HTMLSize, TextPart, ListUnsubscribe, ImageAlt, RemoteContent, DeceptiveLinks}

// Standard returns the names of the assertions that run with no option.
func Standard() []string { return slices.Clone(standardNames) }

// GmailClipBytes is the size of HTML above which Gmail clips a message
// ("[Message clipped]"): 102 KB.
const GmailClipBytes = 102 * 1024

// The verdict requirements (Options.Verdict).
const (
	VerdictNotFail = "not-fail" // the default: anything but "fail"
	VerdictPass    = "pass"     // SPF, DKIM and DMARC passed
)

// Options say which assertions run beyond the standard ones, and tighten
// them. The zero value runs the standard assertions.
type Options struct {
	Subject, From, To *Match
	// Verdict is VerdictNotFail ("" too) or VerdictPass.
	Verdict string
	// MinCompat, when set, is the least HTML compatibility score (0-100).
	MinCompat *float64
	// MaxSpam, when set, is the highest spam score; a mail the server did
	// not score fails ("not scored").
	MaxSpam *float64
	// Links checks every link's HTTP status (the network).
	Links bool
	// AllowPrivate lets Links check loopback and private addresses.
	AllowPrivate bool
	// LinkTimeout is the time a link may take (0: linkcheck's default).
	LinkTimeout time.Duration
	// Skip names standard assertions not to run.
	Skip []string
}

// Validate checks the options: the verdict word, the score ranges and
// the names in Skip. Its errors are one line, for a usage error.
func (o Options) Validate() error {
	switch o.Verdict {
	case "", VerdictNotFail, VerdictPass:
	default:
		return fmt.Errorf("--verdict %q: give pass or not-fail", o.Verdict)
	}
	if o.MinCompat != nil && (*o.MinCompat < 0 || *o.MinCompat > 100) {
		return fmt.Errorf("--min-compat %g: give a score from 0 to 100", *o.MinCompat)
	}
	for _, s := range o.Skip {
		if !slices.Contains(standardNames, s) {
			return fmt.Errorf("unknown assertion %q: --skip takes %s", s, strings.Join(standardNames, ", "))
		}
	}
	return nil
}

// Result is one assertion's outcome.
type Result struct {
	Name     string `json:"name"`
	Passed   bool   `json:"passed"`
	Expected string `json:"expected"`
	// Found is what the mail has, said so that a failure explains itself.
	Found string `json:"found"`
	// Detail is more to read on a failure, such as a golden file's diff.
	Detail string `json:"detail,omitempty"`
}

// Report is the outcome of every assertion run on one mail.
type Report struct {
	ID      string   `json:"id"`
	Subject string   `json:"subject"`
	Passed  bool     `json:"passed"`
	Failed  int      `json:"failed"`
	Results []Result `json:"results"`
}

// Add appends r and updates the counts.
func (rep *Report) Add(r Result) {
	rep.Results = append(rep.Results, r)
	if !r.Passed {
		rep.Failed++
	}
	rep.Passed = rep.Failed == 0
}

// Check runs the assertions o asks for on e, in a fixed order. Only
// o.Links uses the network; ctx bounds it.
func Check(ctx context.Context, e model.Email, o Options) Report {
	rep := Report{ID: e.ID, Subject: e.Subject, Passed: true, Results: []Result{}}
	for _, m := range []struct {
		name  string
		match *Match
		check func(*Match) Result
	}{{Subject, o.Subject, func(m *Match) Result { return checkSubject(e, m) }},
		{From, o.From, func(m *Match) Result { return checkFrom(e, m) }},
		{To, o.To, func(m *Match) Result { return checkTo(e, m) }}} {
		if m.match != nil {
			rep.Add(m.check(m.match))
		}
	}
	run := func(name string, check func() Result) {
		if !slices.Contains(o.Skip, name) {
			rep.Add(check())
		}
	}
	run(Verdict, func() Result { return checkVerdict(e, o.Verdict) })
	if o.MinCompat != nil {
		rep.Add(checkCompat(e, *o.MinCompat))
	}
	if o.MaxSpam != nil {
		rep.Add(checkSpam(e, *o.MaxSpam))
	}
	if o.Links {
		rep.Add(checkLinks(ctx, e, o))
	}
	facts := readHTML(e.HTML)
	run(HTMLSize, func() Result { return checkHTMLSize(e) })
	run(TextPart, func() Result { return checkTextPart(e) })
	run(ListUnsubscribe, func() Result { return checkListUnsubscribe(e) })
	run(ImageAlt, func() Result { return facts.imageAlt() })
	run(RemoteContent, func() Result { return facts.remoteContent() })
	run(DeceptiveLinks, func() Result { return checkDeceptive(e) })
	return rep
}

// Match is an expectation of a text: equal to it, or (written "~REGEX")
// matching a regular expression.
type Match struct {
	text string
	re   *regexp.Regexp
}

// ParseMatch reads an expectation: "~REGEX" or an exact text; flag names
// it in the error.
func ParseMatch(flag, s string) (*Match, error) {
	expr, isRegex := strings.CutPrefix(s, "~")
	if !isRegex {
		return &Match{text: s}, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%s %q is not a regular expression: %w", flag, s, err)
	}
	return &Match{text: s, re: re}, nil
}

// String is the expectation as written.
func (m *Match) String() string {
	if m.re != nil {
		return "matches " + m.re.String()
	}
	return fmt.Sprintf("is %q", m.text)
}

// matches reports whether one of values satisfies m: the regular
// expression matches it, or it equals the text (fold says ignoring case).
func (m *Match) matches(fold bool, values ...string) bool {
	for _, v := range values {
		switch {
		case m.re != nil && m.re.MatchString(v):
			return true
		case m.re == nil && (v == m.text || fold && strings.EqualFold(v, m.text)):
			return true
		}
	}
	return false
}

func checkSubject(e model.Email, m *Match) Result {
	return Result{Name: Subject, Passed: m.matches(false, e.Subject), Expected: "subject " + m.String(), Found: fmt.Sprintf("%q", e.Subject)}
}

func checkFrom(e model.Email, m *Match) Result {
	values := []string{e.From}
	if addrs, ok := model.ParseAddressList(e.From); ok && len(addrs) == 1 {
		values = append(values, addrs[0].Address, addrs[0].Name+" <"+addrs[0].Address+">")
	}
	return Result{Name: From, Passed: m.matches(true, values...), Expected: "sender " + m.String(), Found: fmt.Sprintf("%q", e.From)}
}

func checkTo(e model.Email, m *Match) Result {
	values := slices.Clone(e.To)
	for _, to := range e.To {
		if addrs, ok := model.ParseAddressList(to); ok {
			for _, a := range addrs {
				values = append(values, a.Address)
			}
		}
	}
	found := "no recipient"
	if len(e.To) > 0 {
		found = strings.Join(e.To, ", ")
	}
	return Result{Name: To, Passed: m.matches(true, values...), Expected: "a recipient " + m.String(), Found: found}
}

func checkVerdict(e model.Email, want string) Result {
	v := e.AuthResults.Verdict()
	found := v.Word()
	if reasons := e.AuthResults.Reasons(); len(reasons) > 0 {
		found += " (" + strings.Join(reasons, "; ") + ")"
	}
	if want == VerdictPass {
		return Result{Name: Verdict, Passed: v == model.VerdictPassed, Expected: "authentication verdict pass", Found: found}
	}
	return Result{Name: Verdict, Passed: v != model.VerdictFailed, Expected: "authentication verdict not fail", Found: found}
}
