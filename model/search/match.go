package search

import (
	"strings"

	"github.com/jaytaylor/html2text"

	"sandview/model"
	"sandview/model/termtext"
)

// verdict is a term's answer for one email. It is unknown when the answer
// depends on what the email lacks: its content (not loaded) or its receipt
// time (zero). Negation leaves unknown as it is, and an email matches only
// when every term says yes.
type verdict uint8

const (
	no verdict = iota
	yes
	unknown
)

func verdictOf(ok bool) verdict {
	if ok {
		return yes
	}
	return no
}

// document is an email's searchable text, each field folded on first use
// and kept; for the body, its byte pairs and what the last searches found;
// and its auth: word, computed once.
type document struct {
	content   bool // whether the email it was made from had its content loaded
	text      [fieldCount]string
	ready     [fieldCount]bool
	bodyGrams grams
	bodyMemo  [memoSlots]bodyMemo
	auth      string // authWord of the email's verdict; "" until computed
}

// memoSlots is how many text terms of a query have their own bodyMemo; more
// terms share them.
const memoSlots = 4

// bodyMemo is where a needle first occurs in the body, or -1 if it does not.
// Any occurrence of a needle that contains it holds it too, so while the
// user types a word the body is scanned from there (or not at all) instead
// of from the start.
type bodyMemo struct {
	needle string
	at     int
}

// Match reports whether e matches the query, folding e's text afresh: for
// one-off checks. To search the same emails repeatedly, use an Index.
func (q Query) Match(e model.Email) bool {
	if q.IsEmpty() {
		return true
	}
	return q.match(&document{content: e.HasContent}, &e)
}

// match tests the terms other than text first: they are cheaper and fold
// nothing.
func (q Query) match(d *document, e *model.Email) bool {
	for _, textTerms := range []bool{false, true} {
		for i := range q.terms {
			t := &q.terms[i]
			if (t.kind == kindText) != textTerms {
				continue
			}
			v := t.test(d, e)
			if t.negate && v != unknown {
				v = verdictOf(v == no)
			}
			if v != yes {
				return false
			}
		}
	}
	return true
}

// test answers the term without its negation.
func (t *term) test(d *document, e *model.Email) verdict {
	if t.kind != kindText && t.needsContent() && !e.HasContent {
		return unknown
	}
	switch t.kind {
	case kindText:
		return d.contains(e, t)
	case kindRead:
		return verdictOf(e.IsRead == t.want)
	case kindBefore, kindAfter:
		if e.ReceivedAt.IsZero() {
			return unknown
		}
		return verdictOf(e.ReceivedAt.Before(t.at) == (t.kind == kindBefore))
	case kindAttachment:
		return verdictOf(len(e.Attachments) > 0)
	case kindAuth:
		return verdictOf(d.authWord(e) == t.value)
	case kindCheck:
		return verdictOf(e.AuthResults.HasResult(t.check, t.value))
	}
	return no
}

// contains looks for a text term's needle in its field, or in every field
// for free text. Without content, a field outside the metadata is unknown.
func (d *document) contains(e *model.Email, t *term) verdict {
	if t.field != anyField && !t.field.inMetadata() && !e.HasContent {
		return unknown
	}
	for f := range fieldCount {
		if searches(t.field, f) && (f.inMetadata() || e.HasContent) && d.fieldContains(e, f, t) {
			return yes
		}
	}
	if t.field == anyField && !e.HasContent {
		return unknown
	}
	return no
}

// fieldContains looks for the needle in field f. The body, the one big
// field, is scanned only when its byte pairs cover the needle's, and from
// where the term's memo proves the needle cannot start earlier.
func (d *document) fieldContains(e *model.Email, f Field, t *term) bool {
	text := d.field(e, f)
	if f != FieldBody {
		return strings.Contains(text, t.needle)
	}
	memo := &d.bodyMemo[t.slot]
	from := 0
	if k := strings.Index(t.needle, memo.needle); memo.needle != "" && k >= 0 {
		if memo.at < 0 {
			return false
		}
		from = max(memo.at-k, 0)
	}
	at := -1
	if d.bodyGrams.covers(&t.grams) {
		if i := strings.Index(text[from:], t.needle); i >= 0 {
			at = from + i
		}
	}
	*memo = bodyMemo{t.needle, at}
	return at >= 0
}

func (d *document) field(e *model.Email, f Field) string {
	if !d.ready[f] {
		d.text[f], d.ready[f] = fold(fieldText(e, f)), true
		if f == FieldBody {
			d.bodyGrams = gramsOf(d.text[f])
		}
	}
	return d.text[f]
}

func (d *document) authWord(e *model.Email) string {
	if d.auth == "" {
		d.auth = authWord(e.AuthResults.Verdict())
	}
	return d.auth
}

// authWord is the value of auth: that matches an email of verdict v
// (model.AuthResults.Verdict): pass, fail, unverified (not verified: no
// record or inconclusive) or skipped (not checked; no results too).
func authWord(v model.AuthVerdict) string {
	switch v {
	case model.VerdictPassed:
		return authPass
	case model.VerdictFailed:
		return authFail
	case model.VerdictNotVerified:
		return authUnverified
	}
	return authSkipped
}

// fieldText is the text of field f that is searched: one-line fields and
// the body sanitized as the terminal shows them, To, Cc (model.Email.Cc)
// and the envelope recipients joined with ", ".
func fieldText(e *model.Email, f Field) string {
	switch f {
	case FieldSubject:
		return termtext.SanitizeLine(e.Subject)
	case FieldFrom:
		return termtext.SanitizeLine(e.From)
	case FieldTo:
		return termtext.SanitizeLine(strings.Join(e.To, ", "))
	case FieldCc:
		return termtext.SanitizeLine(strings.Join(e.Cc(), ", "))
	case FieldRcpt:
		return termtext.SanitizeLine(strings.Join(model.AddrSpecs(e.EnvelopeTo()), ", "))
	}
	return BodyText(e)
}

// BodyText is the text part and the HTML part as text (links kept), so
// that a word only one of them holds is found. HTML that cannot be
// converted is searched as it is.
func BodyText(e *model.Email) string {
	if e.HTML == "" {
		return termtext.Sanitize(e.Text)
	}
	html, err := html2text.FromString(e.HTML, html2text.Options{OmitLinks: false})
	if err != nil {
		html = e.HTML
	}
	if strings.TrimSpace(e.Text) == "" {
		return termtext.Sanitize(html)
	}
	return termtext.Sanitize(e.Text + "\n\n" + html)
}
