package core

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSnippet: a snippet is the text with its runs of white space made one
// space, cut to snippetLength characters (not bytes).
func TestSnippet(t *testing.T) {
	long := strings.Repeat("Grüße aus Köln ✓ ", 40)
	longWant := string([]rune(strings.TrimSpace(long))[:snippetLength])
	tests := []struct{ text, want string }{
		{"", ""},
		{"  hello \r\n\t world  ", "hello world"},
		{long, longWant},
		{strings.Repeat("x", 500), strings.Repeat("x", snippetLength)},
		{strings.Repeat("ab\n ", 100), strings.Repeat("ab ", 67)[:snippetLength]},
		{strings.Repeat("é", snippetLength), strings.Repeat("é", snippetLength)},
	}
	for _, tt := range tests {
		got := snippet(tt.text)
		if got != tt.want {
			t.Errorf("snippet(%.20q…) = %q, want %q", tt.text, got, tt.want)
		}
		if n := utf8.RuneCountInString(got); n > snippetLength {
			t.Errorf("snippet(%.20q…) has %d characters", tt.text, n)
		}
	}
}
