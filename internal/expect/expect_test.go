package expect

import (
	"context"
	"encoding/xml"
	"strings"
	"testing"

	"sandview/model"
)

// results maps each assertion's name to its result.
func results(rep Report) map[string]Result {
	m := map[string]Result{}
	for _, r := range rep.Results {
		m[r.Name] = r
	}
	return m
}

// TestSpamScore: a scored mail passes at or under the limit and fails over
// it; a mail the server did not score fails with "not scored".
func TestSpamScore(t *testing.T) {
	limit := 5.0
	for _, tt := range []struct {
		name   string
		spam   *model.SpamAnalysis
		passed bool
		found  string
	}{
		{"under", &model.SpamAnalysis{Status: model.SpamAnalyzed, Score: 1.5, RequiredScore: 5}, true, "1.5 points"},
		{"over", &model.SpamAnalysis{Status: model.SpamAnalyzed, Score: 7.2, RequiredScore: 5, IsSpam: true}, false, "7.2 points, 5.0 required: SPAM"},
		{"not scored", nil, false, "not scored"},
		{"skipped", &model.SpamAnalysis{Status: model.SpamSkipped, Info: "spamd is down"}, false, "not scored: spamd is down"},
	} {
		r := results(Check(context.Background(), model.Email{Text: "hi", SpamAnalysis: tt.spam}, Options{MaxSpam: &limit}))[Spam]
		if r.Passed != tt.passed || !strings.Contains(r.Found, tt.found) {
			t.Errorf("%s: %+v", tt.name, r)
		}
	}
}

// TestHTMLAssertions: images without alt, scripts and remote fonts are
// named; alt="" (decoration) passes; the HTML size is measured against
// Gmail's 102 KB.
func TestHTMLAssertions(t *testing.T) {
	bad := `<html><head><link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">
<style>@import url("https://cdn.example/x.css"); @font-face { font-family: X; src: url(https://cdn.example/x.woff2) }</style>
<script src="https://cdn.example/track.js"></script></head>
<body><img src="logo.png"><img src="spacer.gif" alt=""><IMG SRC="hero.jpg" ALT="A hero"></body></html>`
	got := results(Check(context.Background(), model.Email{HTML: bad}, Options{}))
	if r := got[ImageAlt]; r.Passed || r.Found != "1 of 3 images without alt: logo.png" {
		t.Errorf("image-alt: %+v", r)
	}
	r := got[RemoteContent]
	for _, want := range []string{"scripts: https://cdn.example/track.js", "https://fonts.googleapis.com/css?family=Roboto", "https://cdn.example/x.css", "https://cdn.example/x.woff2"} {
		if r.Passed || !strings.Contains(r.Found, want) {
			t.Errorf("remote-fonts-scripts lacks %q: %+v", want, r)
		}
	}
	if r := got[TextPart]; r.Passed || r.Found != "no text part (HTML only)" {
		t.Errorf("text-part: %+v", r)
	}
	good := results(Check(context.Background(), model.Email{Text: "hi", HTML: `<style>@font-face{font-family:X;src:url(data:font/woff2;base64,AA)}</style><img src="a.png" alt="">`}, Options{}))
	for _, name := range []string{ImageAlt, RemoteContent, TextPart, HTMLSize} {
		if !good[name].Passed {
			t.Errorf("%s fails on good HTML: %+v", name, good[name])
		}
	}
	if r := checkHTMLSize(model.Email{HTML: strings.Repeat("x", GmailClipBytes)}); r.Passed || r.Found != "102.0 KB" {
		t.Errorf("html-size at 102 KB: %+v", r)
	}
	if r := checkHTMLSize(model.Email{HTML: strings.Repeat("x", GmailClipBytes-1)}); !r.Passed {
		t.Errorf("html-size under 102 KB: %+v", r)
	}
}

// TestOptionsValidate: an unknown assertion, a verdict word and a score
// out of range are refused with one line naming them.
func TestOptionsValidate(t *testing.T) {
	big := 120.0
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Skip: []string{"list-unsub"}}, `unknown assertion "list-unsub": --skip takes verdict, html-size`},
		{Options{Verdict: "passed"}, `--verdict "passed": give pass or not-fail`},
		{Options{MinCompat: &big}, "--min-compat 120: give a score from 0 to 100"},
	} {
		err := tt.o.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Validate(%+v) = %v, want %q", tt.o, err, tt.want)
		}
	}
	if _, err := ParseMatch("--subject", "~(unclosed"); err == nil || !strings.Contains(err.Error(), `--subject "~(unclosed" is not a regular expression`) {
		t.Errorf("malformed regex: %v", err)
	}
}

// TestNormalize: every kind of volatile value becomes its placeholder;
// words and short numbers stay.
func TestNormalize(t *testing.T) {
	in := "Hi Ada, your code is 4821.\r\nOrder A1B2C3D4 of 2026-11-21T10:00:00Z (Sat, 21 Nov 2026 10:00:00 +0000), November 21, 2026 at 10:30 PM.\n" +
		"https://app.example/confirm?token=abc&uid=42#top id 3f1c2a9e-1b2c-4d5e-8f90-0123456789ab, 3 items, welcome123   \n"
	want := "Hi Ada, your code is {code}.\nOrder {id} of {date} ({date}), {date} at {time}.\n" +
		"https://app.example/confirm?token={token}&uid={uid}#top id {uuid}, 3 items, {id}\n"
	if got := Normalize(in, []string{"4821"}); got != want {
		t.Errorf("Normalize:\n%q\nwant\n%q", got, want)
	}
}

// TestGolden: the same snapshot passes; another fails with a unified diff.
func TestGolden(t *testing.T) {
	snap := "Subject: Welcome\n\n== text ==\nHello {id}\n"
	if r := Golden("welcome.golden", strings.ReplaceAll(snap, "\n", "\r\n"), snap); !r.Passed {
		t.Errorf("same snapshot: %+v", r)
	}
	r := Golden("welcome.golden", snap, strings.Replace(snap, "Hello", "Goodbye", 1))
	if r.Passed || !strings.Contains(r.Detail, "--- welcome.golden\n+++ this mail\n") || !strings.Contains(r.Detail, "-Hello {id}\n+Goodbye {id}\n") ||
		!strings.HasPrefix(r.Found, "the template changed: 2 lines differ") {
		t.Errorf("changed snapshot: %+v\n%s", r, r.Detail)
	}
}

// TestJUnit: the XML parses, with a test case per assertion and a failure
// for each failed one, its message saying what was found.
func TestJUnit(t *testing.T) {
	rep := Check(context.Background(), model.Email{ID: "m1", Subject: "Hi \x1b[31m<&>", Text: "hi"}, Options{})
	var b strings.Builder
	if err := rep.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	s := doc.Suites[0]
	if doc.Tests != len(Standard()) || s.Tests != doc.Tests || doc.Failures != 1 || s.Failures != 1 || len(s.Cases) != doc.Tests ||
		strings.Contains(b.String(), "\x1b") || !strings.Contains(s.Name, "Hi <&>") {
		t.Fatalf("JUnit: %+v\n%s", doc, b.String())
	}
	for _, c := range s.Cases {
		if (c.Failure != nil) != (c.Name == ListUnsubscribe) {
			t.Errorf("case %s: failure %+v", c.Name, c.Failure)
		}
	}
	if f := s.Cases[3].Failure; f == nil || f.Message != "expected a List-Unsubscribe header; found no List-Unsubscribe header" {
		t.Errorf("failure message: %+v", f)
	}
}

// TestSnapshotNamesTheInbox: the inbox's address becomes {inbox} in any
// case, whether or not its random part holds a digit (one without a digit
// was kept, so a golden file made on one run failed on the next, one run
// in eight); another address is kept.
func TestSnapshotNamesTheInbox(t *testing.T) {
	for _, inbox := range []string{"yiyvvupvcy@sandbox.test", "irv6ogckis@sandbox.test"} {
		e := model.Email{From: "Shop <shop@example.org>", To: []string{strings.ToUpper(inbox[:1]) + inbox[1:], "support@example.org"}, Subject: "Welcome", Text: "Hello " + inbox}
		got := Snapshot(e, inbox)
		if strings.Contains(strings.ToLower(got), inbox) || !strings.Contains(got, "To: {inbox}, support@example.org\n") || !strings.Contains(got, "Hello {inbox}") {
			t.Errorf("snapshot of a mail to %s:\n%s", inbox, got)
		}
	}
}
