package model

import (
	"testing"
	"time"
)

// TestParseDateAsPythonDoes: the Date forms Python's
// email.utils.parsedate_tz reads (expected values from Python 3.11) are
// read, offset kept; what it refuses is refused, and so are impossible
// dates it lets through (31 Feb, 25:00).
func TestParseDateAsPythonDoes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // RFC 3339, "" for an error
	}{
		{"01 Jan 2001 00:01+0000", "2001-01-01T00:01:00Z"}, // Python's msg_47.txt
		{"Mon, 01 Jan 2001 00:01 +0000", "2001-01-01T00:01:00Z"},
		{"1 Jan 2001 00:01:02 -0500", "2001-01-01T00:01:02-05:00"},
		{"Wed, 3 Mar 2025 10:00:00+0100", "2025-03-03T10:00:00+01:00"},
		{"3 Mar 25 10:00 EST", "2025-03-03T10:00:00-05:00"},
		{"Mar 3 2025 10:00:00 +0100", "2025-03-03T10:00:00+01:00"},
		{"03-Mar-25 10:00:00 GMT", "2025-03-03T10:00:00Z"},
		{"3 Mar 2025 10.00.30 +0130", "2025-03-03T10:00:30+01:30"},
		{"Monday, 3 March 2025 10:00 PDT", "2025-03-03T10:00:00-07:00"},
		{"3 Mar 2025 10:00", "2025-03-03T10:00:00Z"},
		{"3 Mar 2025 10:00 XYZ", "2025-03-03T10:00:00Z"},
		{"3 Mar 99 10:00 +0000", "1999-03-03T10:00:00Z"},
		{"Mon, 3 Mar 2025 10:00:00 +0100", "2025-03-03T10:00:00+01:00"},
		{"Mon, 3 Mar 2025 10:00:00 +0100 (CET)", "2025-03-03T10:00:00+01:00"},
		{"2025 3 Mar", ""},
		{"yesterday", ""},
		{"", ""},
		{"3 Foo 2025 10:00 +0000", ""},
		{"31 Feb 2025 10:00 +0000", ""},
		{"3 Mar 2025 25:00 +0000", ""},
		{"3 Mar 2025 10:xx +0000", ""},
	} {
		got, err := ParseDate(tc.in)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("ParseDate(%q) = %v, want an error", tc.in, got)
		case tc.want != "" && err != nil:
			t.Errorf("ParseDate(%q): %v, want %s", tc.in, err, tc.want)
		case tc.want != "" && got.Format(time.RFC3339) != tc.want:
			t.Errorf("ParseDate(%q) = %s, want %s", tc.in, got.Format(time.RFC3339), tc.want)
		}
	}
	e := Email{Headers: map[string]string{"Date": "01 Jan 2001 00:01+0000"}}
	if got := e.DateText(time.UTC); got != "Mon, 01 Jan 2001 00:01:00 +0000" {
		t.Errorf("DateText = %q", got)
	}
}
