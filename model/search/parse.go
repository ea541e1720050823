package search

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"sandview/model"
)

// Error is a query that cannot be parsed: which token, where, and why.
type Error struct {
	Token  string // the token as written
	Offset int    // its byte offset in the query
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("%q: %s", e.Token, e.Reason) }

// token is one space-separated part of a query.
type token struct {
	raw    string // as written, with any "-" and quotes
	offset int
	negate bool
	name   string // operator name as written; "" for free text
	value  string // without quotes and escapes
}

// Parse reads a query (see the package documentation for the grammar). now
// is the clock for relative dates (2h, today) and its location the time
// zone of dates written without an offset. An error names the first token
// that cannot be read; an unterminated quote is not an error.
func Parse(q string, now time.Time) (Query, error) {
	var out Query
	for p := skipSpace(q, 0); p < len(q); p = skipSpace(q, p) {
		var tok token
		tok, p = scanToken(q, p)
		if err := out.add(tok, now); err != nil {
			return Query{}, err
		}
	}
	return out, nil
}

// add appends the term tok stands for, or applies its scope.
func (q *Query) add(tok token, now time.Time) error {
	op := strings.ToLower(tok.name)
	value := strings.ToLower(tok.value)
	bad := func(reason string) error {
		return &Error{Token: tok.raw, Offset: tok.offset, Reason: reason}
	}
	t := term{negate: tok.negate}
	switch op {
	case "":
		if tok.value == "" {
			return nil // "" or -"": nothing to search for
		}
		t.kind, t.field, t.value = kindText, anyField, tok.value
	case "from", "to", "cc", "rcpt", "subject":
		if tok.value == "" {
			return bad(op + ": needs a value")
		}
		t.kind, t.field, t.value = kindText, fieldNamed(op), tok.value
	case "is":
		if value != "read" && value != "unread" {
			return bad("is: takes read or unread")
		}
		t.kind, t.want = kindRead, value == "read"
	case "has":
		if value != "attachment" {
			return bad("has: takes attachment")
		}
		t.kind = kindAttachment
	case "auth":
		word, ok := authValues[value]
		if !ok {
			return bad("auth: takes pass, fail, unverified (or none) or skipped")
		}
		t.kind, t.value = kindAuth, word
	case "before", "after":
		at, canonical, ok := parseDate(tok.value, now)
		if !ok {
			return bad(op + ": takes " + dateForms)
		}
		t.kind, t.value, t.at = kindAfter, canonical, at
		if op == "before" {
			t.kind = kindBefore
		}
	case "in":
		if value != "all" {
			return bad("in: takes all")
		}
		if tok.negate {
			return bad("in:all cannot be negated")
		}
		q.allInboxes = true
		return nil
	default:
		if isCheck(op) {
			if !isResult(value) {
				return bad(op + ": takes " + resultWords)
			}
			t.kind, t.check, t.value = kindCheck, op, value
			break
		}
		t.kind, t.field, t.value = kindText, anyField, tok.name+":"+tok.value
		q.notes = append(q.notes, fmt.Sprintf("%q is searched as text: %s: is not an operator", tok.raw, tok.name))
	}
	if t.kind == kindText {
		t.needle = fold(t.value)
		if t.needle == "" {
			// Accents alone (or nothing): search ignores accents, so the
			// term would match every email and mark none.
			q.notes = append(q.notes, fmt.Sprintf("%q is ignored: search ignores accents, and it has nothing else", tok.raw))
			return nil
		}
		t.grams = gramsOf(t.needle)
		t.slot = uint8(len(q.terms) % memoSlots)
	}
	q.terms = append(q.terms, t)
	return nil
}

func fieldNamed(op string) Field {
	for f := range fieldCount {
		if f.String() == op {
			return f
		}
	}
	return anyField
}

// The values of auth:, one per verdict (see authWord).
const (
	authPass       = "pass"
	authFail       = "fail"
	authUnverified = "unverified"
	authSkipped    = "skipped"
)

// authValues maps what auth: takes to its canonical value.
var authValues = map[string]string{
	authPass: authPass, authFail: authFail, authUnverified: authUnverified,
	"none": authUnverified, authSkipped: authSkipped,
}

// resultWords lists the authentication results a check's operator takes.
const resultWords = "pass, fail, softfail, neutral, none, temperror, permerror or skipped"

// isCheck reports whether op, in lower case, is the operator of a check:
// its key (model.Check.Key) in lower case, one per check of
// model.AuthResults.Checks, so that a new check has its operator.
func isCheck(op string) bool {
	for _, c := range (model.AuthResults{}).Checks() {
		if strings.ToLower(c.Key) == op {
			return true
		}
	}
	return false
}

func isResult(v string) bool {
	switch v {
	case model.ResultPass, model.ResultFail, model.ResultSoftfail, model.ResultNeutral,
		model.ResultNone, model.ResultTemperror, model.ResultPermerror, model.ResultSkipped:
		return true
	}
	return false
}

// scanToken reads the token starting at q[p], which is not white space, and
// returns it with the offset after it.
func scanToken(q string, p int) (token, int) {
	tok := token{offset: p}
	if q[p] == '-' && p+1 < len(q) && !spaceAt(q, p+1) {
		tok.negate = true
		p++
	}
	if name, ok := operatorPrefix(q[p:]); ok {
		tok.name = name
		p += len(name) + 1
	}
	if p < len(q) && q[p] == '"' {
		tok.value, p = readQuoted(q, p)
	} else {
		tok.value, p = readBare(q, p)
	}
	tok.raw = q[tok.offset:p]
	return tok, p
}

// operatorPrefix reports whether s starts with an operator: ASCII letters
// and a colon. Known or not is for the caller to decide.
func operatorPrefix(s string) (string, bool) {
	i := 0
	for i < len(s) && ('a' <= s[i] && s[i] <= 'z' || 'A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == 0 || i == len(s) || s[i] != ':' {
		return "", false
	}
	return s[:i], true
}

// startsLikeOperator reports whether free text would read back as an
// operator if written bare.
func startsLikeOperator(v string) bool {
	_, ok := operatorPrefix(v)
	return ok
}

// readQuoted reads a quoted phrase starting at the quote q[p]: up to the
// closing quote or the end of q, with \" and \\ standing for " and \.
func readQuoted(q string, p int) (string, int) {
	var b strings.Builder
	for p++; p < len(q); p++ {
		switch c := q[p]; {
		case c == '"':
			return b.String(), p + 1
		case c == '\\' && p+1 < len(q) && (q[p+1] == '"' || q[p+1] == '\\'):
			p++
			b.WriteByte(q[p])
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), p
}

// readBare reads up to the next white space; quotes inside are plain
// characters.
func readBare(q string, p int) (string, int) {
	start := p
	for p < len(q) && !spaceAt(q, p) {
		_, size := utf8.DecodeRuneInString(q[p:])
		p += size
	}
	return q[start:p], p
}

func skipSpace(q string, p int) int {
	for p < len(q) && spaceAt(q, p) {
		_, size := utf8.DecodeRuneInString(q[p:])
		p += size
	}
	return p
}

func spaceAt(q string, p int) bool {
	r, _ := utf8.DecodeRuneInString(q[p:])
	return unicode.IsSpace(r)
}
