package search

import (
	"errors"
	"testing"
	"unicode/utf8"

	"sandview/model"
	"sandview/model/termtext"
)

// FuzzQuery checks, for any query and text: Parse never panics; an error
// names a token at its offset; String round-trips; highlights are sorted,
// disjoint, within the text and on character boundaries, and agree with
// Match for a single text term; both folds agree.
func FuzzQuery(f *testing.F) {
	for _, seed := range [][2]string{
		{"", ""},
		{`password -from:alice subject:"reset link" is:unread`, "Password Reset"},
		{`"say \"hi\" \\o/`, `say "hi" \o/`},
		{`-"a b" in:all has:attachment auth:fail spf:softfail dkim:none dmarc:pass`, "a b"},
		{"after:2026-11-01 before:7d after:today before:2026-11-01T15:04:05Z", ""},
		{"form:alice https://x.test 10:30 - --x", "form:alice"},
		{"straße ﬁ İ 東京 σ", "STRASSE ﬁle İstanbul 東京 ΟΔΟΣ"},
		{"is:maybe", ""},
		{"x\xff\"\xfe", "\xffx\xfe"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, query, text string) {
		q, err := Parse(query, testNow)
		if err != nil {
			var perr *Error
			if !errors.As(err, &perr) || perr.Offset < 0 || perr.Offset+len(perr.Token) > len(query) ||
				query[perr.Offset:perr.Offset+len(perr.Token)] != perr.Token {
				t.Fatalf("Parse(%q) error %#v does not locate its token", query, err)
			}
			return
		}
		canonical := q.String()
		back, err := Parse(canonical, testNow)
		if err != nil || !sameQuery(back, q) || back.String() != canonical {
			t.Fatalf("Parse(%q) = %q does not round-trip: %q, %v", query, canonical, back.String(), err)
		}
		if folded := fold(text); folded != foldMapped(text).text {
			t.Fatalf("fold(%q) = %q, foldMapped %q", text, folded, foldMapped(text).text)
		}
		for _, s := range []string{text, query} {
			for f := range fieldCount {
				checkRanges(t, s, q.Highlights(f, s))
			}
		}
		e := model.Email{ID: "1", HasContent: true, Subject: termtext.SanitizeLine(text)}
		matched := q.Match(e)
		checkTyping(t, query, model.Email{ID: "1", HasContent: true, Text: text})
		if len(q.terms) == 1 && q.terms[0].kind == kindText && q.terms[0].field == anyField && !q.terms[0].negate {
			if marked := len(q.Highlights(FieldSubject, e.Subject)) > 0; marked != matched {
				t.Fatalf("%q in subject %q: Match %v but highlights %v", query, e.Subject, matched, marked)
			}
		}
	})
}

// checkTyping matches each prefix of query, as typed, against one document
// that remembers what it found, and checks it agrees with a fresh one.
func checkTyping(t *testing.T, query string, e model.Email) {
	t.Helper()
	d := &document{content: e.HasContent}
	for end := range query {
		q, err := Parse(query[:end], testNow)
		if err != nil {
			continue
		}
		if got, want := q.match(d, &e), q.Match(e); got != want {
			t.Fatalf("%q on body %q: %v after earlier prefixes, %v afresh", query[:end], e.Text, got, want)
		}
	}
}

func checkRanges(t *testing.T, s string, ranges []Range) {
	t.Helper()
	boundary := make([]bool, len(s)+1)
	for i := range s {
		boundary[i] = true
	}
	boundary[len(s)] = true
	end := -1
	for _, r := range ranges {
		if r.Start <= end || r.Start >= r.End || r.End > len(s) || !boundary[r.Start] || !boundary[r.End] {
			t.Fatalf("ranges %v of %q: %v is out of order, empty, out of bounds or inside a character", ranges, s, r)
		}
		if !utf8.ValidString(s[r.Start:r.End]) && utf8.ValidString(s) {
			t.Fatalf("range %v of valid %q cuts a character", r, s)
		}
		end = r.End
	}
}
