package search

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandview/model"
)

// testNow is the clock of every test: 2026-11-10 12:00 at UTC+2.
var testNow = time.Date(2026, 11, 10, 12, 0, 0, 0, time.FixedZone("UTC+2", 2*60*60))

func mustParse(t testing.TB, q string) Query {
	t.Helper()
	parsed, err := Parse(q, testNow)
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	return parsed
}

// sameQuery compares what a query searches: its terms and its scope.
func sameQuery(a, b Query) bool {
	return a.allInboxes == b.allInboxes && reflect.DeepEqual(a.terms, b.terms)
}

func TestParseCanonicalForm(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"  foo \t bar\u00a0baz  ", "foo bar baz"},
		{"FROM:Alice", "from:Alice"},
		{"To:bob@x.test CC:carol Subject:Hi", "to:bob@x.test cc:carol subject:Hi"},
		{`subject:"password reset"`, `subject:"password reset"`},
		{`subject:"pass`, `subject:pass`},
		{`subject:-x`, `subject:"-x"`},
		{`-"a b"`, `-"a b"`},
		{`"unterminated phrase`, `"unterminated phrase"`},
		{`"say \"hi\" \\o/ \x"`, `"say \"hi\" \\o/ \\x"`},
		{`"one"two`, `one two`},
		{`a"b c\d`, `"a\"b" c\d`},
		{`-`, `"-"`},
		{`- foo`, `"-" foo`},
		{`--x`, `-"-x"`},
		{`"" -""`, ``},
		{`"-x"`, `"-x"`},
		{`"from:alice"`, `"from:alice"`},
		{`IS:UNREAD is:Read -is:read`, `is:unread is:read -is:read`},
		{`has:Attachment -has:attachment`, `has:attachment -has:attachment`},
		{`auth:PASS -auth:fail`, `auth:pass -auth:fail`},
		{`spf:SoftFail dkim:none -dmarc:permerror spf:temperror dkim:neutral dmarc:skipped spf:pass dkim:fail`,
			`spf:softfail dkim:none -dmarc:permerror spf:temperror dkim:neutral dmarc:skipped spf:pass dkim:fail`},
		{`reverseDns:FAIL -REVERSEDNS:pass`, `reversedns:fail -reversedns:pass`},
		{`foo in:all`, `in:all foo`},
		{`in:ALL in:all`, `in:all`},
		{`10:30 :x`, `10:30 :x`},
		{`after:2026-11-01 before:7D -after:Today before:yesterday`, `after:2026-11-01 before:7d -after:today before:yesterday`},
		{`after:2026-11-01T15:04 before:2026-11-01T15:04:05Z`, `after:2026-11-01T15:04 before:2026-11-01T15:04:05Z`},
		{`Straße ﬁle 東京`, `Straße ﬁle 東京`},
	} {
		q := mustParse(t, tc.in)
		if got := q.String(); got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.want)
			continue
		}
		if back := mustParse(t, q.String()); !sameQuery(back, q) {
			t.Errorf("Parse(%q) does not round-trip through %q", tc.in, q.String())
		}
	}
}

func TestParseTerms(t *testing.T) {
	q := mustParse(t, `-subject:"Password Reset" ÄRGER is:unread in:all`)
	want := []term{
		{kind: kindText, negate: true, field: FieldSubject, value: "Password Reset", needle: "password reset"},
		{kind: kindText, field: anyField, value: "ÄRGER", needle: "arger"},
		{kind: kindRead, want: false},
	}
	want[0].grams, want[1].grams = gramsOf("password reset"), gramsOf("arger")
	want[1].slot = 1
	if !reflect.DeepEqual(q.terms, want) {
		t.Errorf("terms = %+v, want %+v", q.terms, want)
	}
	if !q.AllInboxes() || q.IsEmpty() {
		t.Errorf("AllInboxes = %v, IsEmpty = %v; want true, false", q.AllInboxes(), q.IsEmpty())
	}
	if scope := mustParse(t, "in:all"); !scope.AllInboxes() || !scope.IsEmpty() {
		t.Errorf("in:all alone: AllInboxes = %v, IsEmpty = %v; want true, true", scope.AllInboxes(), scope.IsEmpty())
	}
}

func TestParseUnknownOperatorIsTextWithNote(t *testing.T) {
	q := mustParse(t, `form:alice Foo:"a b" re:`)
	var texts []string
	for _, term := range q.terms {
		if term.kind != kindText || term.field != anyField {
			t.Fatalf("term %+v is not free text", term)
		}
		texts = append(texts, term.value)
	}
	if want := []string{"form:alice", "Foo:a b", "re:"}; !reflect.DeepEqual(texts, want) {
		t.Errorf("texts = %q, want %q", texts, want)
	}
	notes := q.Notes()
	if len(notes) != 3 || !strings.Contains(notes[0], `"form:alice"`) || !strings.Contains(notes[0], "form: is not an operator") {
		t.Errorf("Notes() = %q, want one note per unknown operator naming it", notes)
	}
	if mustParse(t, "from:alice 10:30").Notes() != nil {
		t.Error("known operators and times gave notes")
	}
}

// TestParseAccentsAloneAreIgnoredWithNote: a term that is only combining
// marks folds to nothing (search ignores accents); it is left out with a
// note, so it neither matches every email silently nor marks an empty
// range (found by FuzzQuery, its input kept in testdata/fuzz).
func TestParseAccentsAloneAreIgnoredWithNote(t *testing.T) {
	for _, query := range []string{"\u0610", "subject:\u0301", "\"\u0301\u0308\""} {
		q := mustParse(t, query)
		if len(q.terms) != 0 {
			t.Errorf("%q: terms %+v, want none", query, q.terms)
		}
		if notes := q.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "ignored") {
			t.Errorf("%q: notes %q, want one saying it is ignored", query, notes)
		}
	}
	q := mustParse(t, "caf\u00e9 \u0301")
	if len(q.terms) != 1 || q.terms[0].needle != "cafe" {
		t.Errorf("terms %+v, want the word alone", q.terms)
	}
}

// TestEveryCheckHasItsOperator: each check of model.AuthResults.Checks is
// an operator named by its key, in any case, that takes a result word and
// refuses anything else naming the results it takes.
func TestEveryCheckHasItsOperator(t *testing.T) {
	for _, c := range (model.AuthResults{}).Checks() {
		for _, op := range []string{c.Key, strings.ToUpper(c.Key), strings.ToLower(c.Key)} {
			q := mustParse(t, op+":Fail")
			if len(q.terms) != 1 || q.terms[0].kind != kindCheck || q.Notes() != nil || q.String() != strings.ToLower(c.Key)+":fail" {
				t.Errorf("%s (%s): %q parsed as %+v, notes %q", c.Name, c.Key, op+":Fail", q.terms, q.Notes())
			}
		}
		var perr *Error
		if _, err := Parse(c.Key+":maybe", testNow); !errors.As(err, &perr) || !strings.Contains(perr.Reason, "takes "+resultWords) {
			t.Errorf("%s: %s:maybe gave %v", c.Name, c.Key, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in, token string
		offset    int
		reason    string
	}{
		{"is:maybe", "is:maybe", 0, "is: takes read or unread"},
		{"foo -is:", "-is:", 4, "read or unread"},
		{"has:pdf", "has:pdf", 0, "has: takes attachment"},
		{"auth:maybe", "auth:maybe", 0, "auth: takes pass, fail, unverified (or none) or skipped"},
		{"spf:ok", "spf:ok", 0, "spf: takes pass, fail, softfail"},
		{"dkim:", "dkim:", 0, "dkim: takes"},
		{"a b dmarc:yes", "dmarc:yes", 4, "dmarc: takes"},
		{"after:2026-13-01", "after:2026-13-01", 0, "after: takes a date"},
		{"before:yesterdays", "before:yesterdays", 0, "before: takes"},
		{"after:5y", "after:5y", 0, "after: takes"},
		{"after:1234567d", "after:1234567d", 0, "after: takes"},
		{"after:-2h", "after:-2h", 0, "after: takes"},
		{"after:h", "after:h", 0, "after: takes"},
		{"after:2026-11-01t10:00", "after:2026-11-01t10:00", 0, "after: takes"},
		{"from:", "from:", 0, "from: needs a value"},
		{`subject:""`, `subject:""`, 0, "subject: needs a value"},
		{"x to: y", "to:", 2, "to: needs a value"},
		{"cc:", "cc:", 0, "cc: needs a value"},
		{"in:inbox", "in:inbox", 0, "in: takes all"},
		{"-in:all", "-in:all", 0, "in:all cannot be negated"},
		{"Ärger  is:x is:y", "is:x", 8, "is: takes"},
	} {
		q, err := Parse(tc.in, testNow)
		var perr *Error
		if !errors.As(err, &perr) {
			t.Errorf("Parse(%q) = %v, %v; want an *Error", tc.in, q, err)
			continue
		}
		if perr.Token != tc.token || perr.Offset != tc.offset || !strings.Contains(perr.Reason, tc.reason) {
			t.Errorf("Parse(%q) error = %+v, want token %q at %d, reason with %q", tc.in, perr, tc.token, tc.offset, tc.reason)
		}
		if !strings.Contains(err.Error(), strconv.Quote(tc.token)) {
			t.Errorf("Parse(%q) error %q does not name the token", tc.in, err)
		}
	}
}

func TestParseDates(t *testing.T) {
	utc := func(s string) time.Time {
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return at.UTC()
	}
	for _, tc := range []struct {
		value string
		want  time.Time
	}{
		{"2026-11-01", utc("2026-10-31T22:00:00Z")},
		{"2026-11-01T15:04", utc("2026-11-01T13:04:00Z")},
		{"2026-11-01T15:04:05", utc("2026-11-01T13:04:05Z")},
		{"2026-11-01T15:04:05Z", utc("2026-11-01T15:04:05Z")},
		{"2026-11-01T15:04:05-05:00", utc("2026-11-01T20:04:05Z")},
		{"2026-11-01T15:04:05.5+01:00", utc("2026-11-01T14:04:05.5Z")},
		{"today", utc("2026-11-09T22:00:00Z")},
		{"YESTERDAY", utc("2026-11-08T22:00:00Z")},
		{"0h", utc("2026-11-10T10:00:00Z")},
		{"30m", utc("2026-11-10T09:30:00Z")},
		{"2h", utc("2026-11-10T08:00:00Z")},
		{"7d", utc("2026-11-03T10:00:00Z")},
		{"2W", utc("2026-10-27T10:00:00Z")},
		{"999999w", testNow.AddDate(0, 0, -7*999999).UTC()},
	} {
		for _, op := range []string{"before", "after"} {
			q := mustParse(t, op+":"+tc.value)
			if len(q.terms) != 1 || !q.terms[0].at.Equal(tc.want) || q.terms[0].at.Location() != time.UTC {
				t.Errorf("%s:%s = %+v, want %v in UTC", op, tc.value, q.terms, tc.want)
			}
		}
	}
}
