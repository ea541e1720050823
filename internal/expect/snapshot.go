package expect

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"sandview/model"
	"sandview/model/extract"
	"sandview/model/termtext"
	"sandview/tui/htmltext"
)

// snapshotWidth is the width the HTML is laid out at: wide enough that a
// paragraph stays on one line, so a value of another length never moves
// the line breaks of the text around it.
const snapshotWidth = 1000

// snapshotHeaders are the headers a template sets (Date, Message-ID and
// the trace headers change with every mail and are left out).
var snapshotHeaders = []string{"From", "Reply-To", "To", "Cc", "Subject", "List-Unsubscribe", "List-Unsubscribe-Post"}

// Snapshot is the stable part of e, for a golden file: the headers a
// template sets, the text part, the HTML part as rendered text (as `email
// show --html` writes it), the link targets and the attachments' names,
// with the values that change from mail to mail replaced by named
// placeholders (see Normalize), and the address of the inbox it was read
// from (inbox; "" none) by {inbox}, whatever its case: a test run's inbox
// is a new one each time, and its address, random letters and digits,
// would otherwise be kept whenever it happened to hold no digit. Text is
// sanitized (termtext.Sanitize).
func Snapshot(e model.Email, inbox string) string {
	var b strings.Builder
	b.WriteString("# sandview email snapshot: volatile values are {placeholders}\n")
	for _, name := range snapshotHeaders {
		v := e.Header(name)
		switch name {
		case "From":
			v = e.From
		case "To":
			v = strings.Join(e.To, ", ")
		case "Subject":
			v = e.Subject
		}
		if v = strings.TrimSpace(v); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	for _, a := range e.Attachments {
		fmt.Fprintf(&b, "Attachment: %s (%s)\n", a.Filename, a.ContentType)
	}
	section := func(title, text string) {
		if text = strings.TrimSpace(text); text != "" {
			fmt.Fprintf(&b, "\n== %s ==\n%s\n", title, text)
		}
	}
	section("text", e.Text)
	if e.HTML != "" {
		r := htmltext.Render(e.HTML, snapshotWidth, htmltext.Options{Links: e.Links})
		section("html as text", r.Text)
	}
	section("links", strings.Join(e.Links, "\n"))
	text := termtext.Sanitize(b.String())
	if inbox != "" {
		text = regexp.MustCompile(`(?i)`+regexp.QuoteMeta(inbox)).ReplaceAllLiteralString(text, "{inbox}")
	}
	return Normalize(text, extract.Codes(e))
}

var (
	// urlQuery finds a query parameter of a link: its name, then its value.
	urlQuery = regexp.MustCompile(`([?&;][A-Za-z0-9_.\-\[\]]+)=([^&;#\s<>"')\]]*)`)
	// datePatterns find dates and times, the longest forms first.
	datePatterns = []*regexp.Regexp{
		regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|\s?[+-]\d{2}:?\d{2})?)?`),
		regexp.MustCompile(`(?i)\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s+)?\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?,?\s+\d{4}(?:,?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s?[+-]\d{4}|\s?[AP]M)?(?:\s?\(?[A-Z]{3,4}\)?)?)?`),
		regexp.MustCompile(`(?i)\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s+)?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}`),
		regexp.MustCompile(`\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b`),
		regexp.MustCompile(`(?i)\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AP]M)?\b`),
	}
	// uuidPattern finds UUIDs.
	uuidPattern = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	// idPattern finds runs of 6 or more letters and digits (those with a
	// digit are ids and tokens).
	idPattern = regexp.MustCompile(`\b[A-Za-z0-9]{6,}\b`)
)

// Normalize replaces the volatile values of a snapshot's text with named
// placeholders: a link's query values with {NAME} (the parameter's name:
// ?token={token}), dates and times with {date} and {time}, UUIDs with
// {uuid}, the one-time codes given with {code}, and runs of 6 or more
// letters and digits that include a digit with {id}. Line ends become \n
// and trailing spaces go.
func Normalize(text string, codes []string) string {
	text = urlQuery.ReplaceAllStringFunc(text, func(m string) string {
		name, _, _ := strings.Cut(m, "=")
		return name + "={" + placeholderName(name[1:]) + "}"
	})
	for i, p := range datePatterns {
		placeholder := "{date}"
		if i == len(datePatterns)-1 {
			placeholder = "{time}"
		}
		text = p.ReplaceAllString(text, placeholder)
	}
	text = uuidPattern.ReplaceAllString(text, "{uuid}")
	for _, c := range codes { // after the dates: a year is no code
		text = regexp.MustCompile(`\b`+regexp.QuoteMeta(c)+`\b`).ReplaceAllString(text, "{code}")
	}
	text = idPattern.ReplaceAllStringFunc(text, func(m string) string {
		if strings.ContainsAny(m, "0123456789") {
			return "{id}"
		}
		return m
	})
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}

// placeholderName is a query parameter's name as a placeholder's: its
// letters, digits and _ (a name that has none reads "value").
func placeholderName(name string) string {
	keep := strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, name)
	return firstNonBlank(keep, "value")
}

// Golden compares a mail's snapshot with a golden file's content (label
// names the file): it passes when they are the same, line ends aside, and
// fails with a unified diff (golden → this mail) in Detail.
func Golden(label, golden, snapshot string) Result {
	golden = strings.TrimRight(strings.ReplaceAll(golden, "\r\n", "\n"), "\n") + "\n"
	r := Result{Name: GoldenName, Expected: "the snapshot in " + label, Passed: golden == snapshot, Found: "the same snapshot"}
	if r.Passed {
		return r
	}
	r.Detail = udiff.Unified(label, "this mail", golden, snapshot)
	changed := 0
	for _, l := range strings.Split(r.Detail, "\n") {
		if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
			changed++
		}
	}
	r.Found = fmt.Sprintf("the template changed: %d lines differ (diff below; --update rewrites %s)", changed, label)
	return r
}
