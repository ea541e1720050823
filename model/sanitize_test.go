package model

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "Hello, world", "Hello, world"},
		{"unicode kept", "Grüße 🚀 日本", "Grüße 🚀 日本"},
		{"tab and newline kept", "a\tb\nc", "a\tb\nc"},
		{"CSI clear screen", "x\x1b[2Jy", "xy"},
		{"SGR colour", "\x1b[31mred\x1b[0m", "red"},
		{"OSC 52 clipboard with BEL", "a\x1b]52;c;ZXZpbA==\x07b", "ab"},
		{"OSC 8 link with ST", "\x1b]8;;https://evil.test\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"carriage return", "safe\rEVIL", "safeEVIL"},
		{"C0 bell and backspace", "a\x07\x08b", "ab"},
		{"DEL", "a\x7fb", "ab"},
		{"C1 CSI", "a\u009b2Jb", "ab"},
		{"C1 NEL", "a\u0085b", "ab"},
		{"bidi override", "invoice\u202efdp.exe", "invoicefdp.exe"},
		{"bidi isolates and marks", "\u2066a\u2069\u200f\u061c", "a"},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
		{"unterminated OSC", "a\x1b]0;title", "a"},
		{"lone ESC", "a\x1b", "a"},
		{"charset selection", "a\x1b(Bb", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SanitizeText(tt.in); got != tt.want {
				t.Fatalf("SanitizeText(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	if got := SanitizeLine("a\nb\tc\x1b[1m"); got != "a b c" {
		t.Fatalf("got %q", got)
	}
}

func FuzzSanitizeText(f *testing.F) {
	for _, s := range []string{"", "abc", "\x1b[2J", "\u202e", "\u009b31m", "\x1b]52;c;x\x07"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := SanitizeText(in)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", in)
		}
		for _, r := range out {
			if unsafeRune(r) {
				t.Fatalf("unsafe rune %U left in %q (from %q)", r, out, in)
			}
		}
		if strings.ContainsRune(out, 0x1b) {
			t.Fatalf("ESC left in %q", out)
		}
		if again := SanitizeText(out); again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
	})
}

func BenchmarkSanitizeClean(b *testing.B) {
	s := strings.Repeat("An ordinary subject line with ümlauts ", 4)
	for b.Loop() {
		SanitizeText(s)
	}
}
