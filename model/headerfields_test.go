package model

import (
	"reflect"
	"testing"
)

func TestHeaderFields(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		want      []HeaderField
	}{
		{"folded and repeated", "Received: a\r\n\tb\r\nReceived: c\r\nSubject: hi\r\n\r\nbody: no\r\n",
			[]HeaderField{{"Received", " a\tb"}, {"Received", " c"}, {"Subject", " hi"}}},
		{"mbox From_ line", "From a@example.org  Mon Mar  3 10:00:00 2025\nFrom: a@example.org\nSubject: s\n\nx",
			[]HeaderField{{"From", " a@example.org"}, {"Subject", " s"}}},
		{"a line without indent is no continuation (RFC 5322 2.2.3)", "Subject: first\nsecond line\nFrom: a@example.org\n\nbody\n",
			[]HeaderField{{"Subject", " first"}, {"", "second line"}, {"From", " a@example.org"}}},
		{"first line no field", "no field here\nSubject: s\n\n",
			[]HeaderField{{"", "no field here"}, {"Subject", " s"}}},
		{"space before colon", "Subject : s\n\n", []HeaderField{{"Subject", " s"}}},
		{"no body", "Subject: s", []HeaderField{{"Subject", " s"}}},
		{"empty", "", nil},
		{"empty header section", "\r\nbody\r\n", nil},
	} {
		if got := HeaderFields([]byte(c.raw)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
