package search

import (
	"reflect"
	"testing"
)

func TestHighlights(t *testing.T) {
	for _, tc := range []struct {
		query string
		field Field
		text  string
		want  []Range
	}{
		{"", FieldSubject, "anything", nil},
		{"bar", FieldSubject, "", nil},
		{"bar", FieldSubject, "foo bar BAR", []Range{{4, 7}, {8, 11}}},
		{"-foo bar", FieldSubject, "foo bar", []Range{{4, 7}}},
		{"is:read has:attachment auth:pass after:1d", FieldSubject, "read attachment", nil},
		{"from:alice", FieldFrom, "Alice <alice@x>", []Range{{0, 5}, {7, 12}}},
		{"from:alice", FieldSubject, "alice", nil},
		{"cc:carol", FieldCc, "carol", []Range{{0, 5}}},
		{"to:bob", FieldTo, "a@x, bob@y", []Range{{5, 8}}},
		{"subject:x y", FieldBody, "x y", []Range{{2, 3}}},
		// Overlapping and touching matches merge.
		{"ab bc", FieldBody, "abc", []Range{{0, 3}}},
		{"a", FieldBody, "aaa", []Range{{0, 3}}},
		{"ab cd", FieldBody, "abcd ab", []Range{{0, 4}, {5, 7}}},
		// Folding changes lengths: ranges cover whole characters of the text.
		{"straße", FieldSubject, "STRASSE", []Range{{0, 7}}},
		{"strasse", FieldSubject, "Straße!", []Range{{0, 7}}},
		{"ss", FieldSubject, "Straße", []Range{{4, 6}}},
		{"s", FieldSubject, "ẞ", []Range{{0, 3}}},
		{"fi", FieldSubject, "ﬁle", []Range{{0, 3}}},
		{"ile", FieldSubject, "ﬁle", []Range{{0, 5}}},
		{"i", FieldSubject, "İstanbul", []Range{{0, 2}}},
		{"istanbul", FieldSubject, "İstanbul", []Range{{0, 9}}},
		{"cafe", FieldSubject, "Café", []Range{{0, 5}}},
		{"東京", FieldBody, "ようこそ東京へ", []Range{{12, 18}}},
		{"k", FieldSubject, "KELVIN \u212a", []Range{{0, 1}, {7, 10}}},
		{"σ", FieldSubject, "ΟΔΟΣ ς", []Range{{6, 8}, {9, 11}}},
		{"é", FieldSubject, "CAFÉ café", []Range{{3, 5}, {9, 11}}},
		{"x", FieldSubject, "\xffx\xfe", []Range{{1, 2}}},
	} {
		got := mustParse(t, tc.query).Highlights(tc.field, tc.text)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q in %s %q: Highlights = %v, want %v", tc.query, tc.field, tc.text, got, tc.want)
		}
	}
}
