package search

import (
	"strings"
	"time"
	"unicode"
)

// Field names a text field of an email that terms search and Highlights
// marks.
type Field uint8

// The text fields. Free text searches all of them.
const (
	FieldSubject Field = iota
	FieldFrom
	FieldTo
	FieldCc
	FieldRcpt // the envelope recipients (model.Email.EnvelopeTo)
	FieldBody
	fieldCount
)

// NoMatches is what the message list (CLI and TUI alike) says when a
// search matches nothing.
const NoMatches = "No emails match the search"

// anyField marks a free-text term: it searches every field.
const anyField = fieldCount

// String is the field's operator name ("body" has no operator).
func (f Field) String() string {
	switch f {
	case FieldSubject:
		return "subject"
	case FieldFrom:
		return "from"
	case FieldTo:
		return "to"
	case FieldCc:
		return "cc"
	case FieldRcpt:
		return "rcpt"
	case FieldBody:
		return "body"
	}
	return "any"
}

// inMetadata reports whether the field is known for an email whose content
// is not loaded.
func (f Field) inMetadata() bool {
	return f == FieldSubject || f == FieldFrom || f == FieldTo || f == FieldRcpt
}

// searches reports whether a text term on field (anyField: free text)
// searches f: to: searches the envelope recipients as well as To.
func searches(field, f Field) bool {
	return field == anyField || field == f || field == FieldTo && f == FieldRcpt
}

// Range is a match in a string: bytes [Start, End), on character boundaries.
type Range struct {
	Start, End int
}

// kind is what a term tests.
type kind uint8

const (
	kindText       kind = iota // a substring in field (anyField: in any field)
	kindRead                   // is:read (want) or is:unread
	kindAttachment             // has:attachment
	kindAuth                   // auth:value, value an authWord
	kindCheck                  // check:value (spf:, dkim:, …), any entry of the check
	kindBefore                 // received before at
	kindAfter                  // received at or after at
)

// term is one condition of a query. It holds no slices or pointers, so
// terms compare with ==; at some 300 bytes, it is passed by pointer.
type term struct {
	kind   kind
	negate bool
	field  Field     // kindText
	check  string    // kindCheck: the check's key (model.Check.Key) in lower case
	value  string    // text as written; the lowercase result word; the auth word; the date as written
	needle string    // kindText: fold(value)
	grams  grams     // kindText: the needle's byte pairs
	slot   uint8     // kindText: the bodyMemo this term uses
	want   bool      // kindRead: read
	at     time.Time // kindBefore, kindAfter; in UTC
}

// Query is a parsed search. The zero Query matches every email.
type Query struct {
	terms      []term
	allInboxes bool
	notes      []string
}

// AllInboxes reports whether the query asked, with in:all, to search every
// inbox rather than the current one. It is a scope for the caller to apply,
// not a condition on an email.
func (q Query) AllInboxes() bool { return q.allInboxes }

// IsEmpty reports whether the query has no conditions: it matches every
// email (it may still ask for in:all).
func (q Query) IsEmpty() bool { return len(q.terms) == 0 }

// NeedsContent reports whether the query tests something only an email's
// content holds (body, Cc, attachments, authentication results): emails
// loaded without content then match only where their metadata decides (see
// the package documentation), so the caller should load their content.
func (q Query) NeedsContent() bool {
	for i := range q.terms {
		if q.terms[i].needsContent() {
			return true
		}
	}
	return false
}

// Notes lists what the query did that the user may not expect, such as
// "form:alice" searched as text because form: is not an operator; for a
// status line.
func (q Query) Notes() []string { return q.notes }

func (t *term) needsContent() bool {
	switch t.kind {
	case kindText:
		return !t.field.inMetadata()
	case kindRead, kindBefore, kindAfter:
		return false
	}
	return true
}

// String is the query in canonical form: in:all first, then the terms in
// the order written, operators in lower case, values quoted only where
// needed. Parsing it with the same clock gives the same terms and scope.
func (q Query) String() string {
	var b strings.Builder
	if q.allInboxes {
		b.WriteString("in:all")
	}
	for i := range q.terms {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if q.terms[i].negate {
			b.WriteByte('-')
		}
		q.terms[i].write(&b)
	}
	return b.String()
}

func (t *term) write(b *strings.Builder) {
	switch t.kind {
	case kindText:
		if t.field == anyField {
			writeValue(b, t.value, needsQuotes(t.value) || startsLikeOperator(t.value))
			return
		}
		b.WriteString(t.field.String() + ":")
		writeValue(b, t.value, needsQuotes(t.value))
	case kindRead:
		b.WriteString(pick(t.want, "is:read", "is:unread"))
	case kindAttachment:
		b.WriteString("has:attachment")
	case kindAuth:
		b.WriteString("auth:" + t.value)
	case kindCheck:
		b.WriteString(t.check + ":" + t.value)
	case kindBefore:
		b.WriteString("before:" + t.value)
	case kindAfter:
		b.WriteString("after:" + t.value)
	}
}

// needsQuotes reports whether a value must be quoted to read back as one
// token: it holds white space or a quote, or is a lone "-" or starts with one.
func needsQuotes(v string) bool {
	return strings.HasPrefix(v, "-") || strings.ContainsRune(v, '"') || strings.ContainsFunc(v, unicode.IsSpace)
}

// writeValue writes v, between quotes with " and \ escaped when quoted.
func writeValue(b *strings.Builder, v string, quoted bool) {
	if !quoted {
		b.WriteString(v)
		return
	}
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		if v[i] == '"' || v[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	b.WriteByte('"')
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
