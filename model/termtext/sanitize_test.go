package termtext_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"sandview/model/termtext"
	"sandview/tui/corpus"
)

func TestSanitize(t *testing.T) {
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
		{"soft hyphen", "W\u00adSHY", "WSHY"},
		{"newsletter preheader", "\u034f \u200c \u00a0 \u2007 \u00ad", "  \u00a0 \u2007 "},
		{"zero width space, joiners, word joiner, BOM", "a\u200bb\u200cc\u200dd\u2060e\ufefff", "abcdef"},
		{"ZWJ family breaks into its members", "👨\u200d👩\u200d👧\u200d👦", "👨👩👧👦"},
		{"skin tone modifier gets its own cells", "👍🏽", "👍\u200b🏽"},
		{"flag kept", "🇩🇪", "🇩🇪"},
		{"lone regional indicator becomes its letter", "🇩🇪🇫 🇩", "🇩🇪F D"},
		{"keycap loses its variation selector", "1\ufe0f\u20e3", "1\u20e3"},
		{"emoji presentation selector", "\u2764\ufe0f", "\u2764"},
		{"text presentation selector", "\u263a\ufe0e", "\u263a"},
		{"tag sequence flag", "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f", "\U0001f3f4"},
		{"Devanagari vowel sign", "का", "क\u200bा"},
		{"Indic conjunct", "क्ष", "क्\u200bष"},
		{"Thai sara am", "กำ", "ก\u200bำ"},
		{"decomposed Hangul is composed", "\u1100\u1161\u11a8", "각"},
		{"combining accent kept", "e\u0301", "e\u0301"},
		{"CJK and Hebrew kept", "日本語 שלום", "日本語 שלום"},
		{"Hangul filler removed", "a\u3164b", "ab"},
		{"line separators become newlines", "a\u2028b\u2029c", "a\nb\nc"},
		{"mark newer than the tables", "\u0897x", "\ufffdx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := termtext.Sanitize(tt.in)
			if got != tt.want {
				t.Fatalf("Sanitize(%+q) = %+q; want %+q", tt.in, got, tt.want)
			}
			corpus.AssertWidthsAgree(t, fmt.Sprintf("Sanitize(%+q)", tt.in), got)
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	if got := termtext.SanitizeLine("a\nb\tc\x1b[1m"); got != "a b c" {
		t.Fatalf("got %q", got)
	}
}

// trickyPieces are the building blocks of the generated hostile strings:
// everything terminals are known to draw at a width other than the one
// lipgloss computes, and their neighbours.
var trickyPieces = []string{
	"a", "Z", " ", "\t", "\n", "\r", "\x1b[31m", "\x1b]8;;https://x.test\x1b\\", "\u009b", "\x07",
	"\u00ad", "\u034f", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u202e", "\u2066",
	"\ufe0e", "\ufe0f", "\U000e0067", "\U000e007f", "\u2028", "\u00a0", "\u2007", "\u3000",
	"\u0301", "\u20e3", "\u0897", "\U0001171e", "\U0001d165",
	"क", "्", "ा", "ष", "ि", "ก", "ำ", "ព", "្", "រ", "ះ", "ൎ", "\u0bbe",
	"\u1100", "\u1161", "\u11a8", "\u1160", "\u115f", "가",
	"👨", "👩", "👍", "🏽", "\U0001f3f4", "🇩", "🇪", "❤", "☺", "1", "#",
	"日", "本", "…", "’", "ש", "ل", "\U0001fae9", "\ufffd", "\xff", "\xe0\xa4",
}

func TestSanitizedGeneratedStringsMeasureTheSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2027))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(trickyPieces[rng.IntN(len(trickyPieces))])
		}
		in := b.String()
		out := termtext.Sanitize(in)
		if again := termtext.Sanitize(out); again != out {
			t.Fatalf("not idempotent: %+q -> %+q -> %+q", in, out, again)
		}
		for _, line := range strings.Split(out, "\n") {
			if d := corpus.WidthDisagreement(line); d != "" {
				t.Fatalf("Sanitize(%+q) line %+q: %s", in, line, d)
			}
		}
		if d := corpus.WidthDisagreement(termtext.SanitizeLine(in)); d != "" {
			t.Fatalf("SanitizeLine(%+q): %s", in, d)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range trickyPieces {
		f.Add(s)
	}
	for _, s := range []string{"", "abc", "\x1b[2J", "\u202e", "\u009b31m", "\x1b]52;c;x\x07", "👨\u200d👩\u200d👧", "क्षा", "\u1100\u1161\u11a8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := termtext.Sanitize(in)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", in)
		}
		for _, r := range out {
			if termtext.RemovedRune(r) && string(r) != termtext.ClusterBreak {
				t.Fatalf("removed rune %U left in %q (from %q)", r, out, in)
			}
		}
		if strings.ContainsRune(out, 0x1b) {
			t.Fatalf("ESC left in %q", out)
		}
		if again := termtext.Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
		for _, line := range strings.Split(out, "\n") {
			if d := corpus.WidthDisagreement(line); d != "" {
				t.Fatalf("Sanitize(%+q) line %+q: %s", in, line, d)
			}
		}
		line := termtext.SanitizeLine(in)
		if strings.ContainsAny(line, "\n\t") {
			t.Fatalf("SanitizeLine(%q) = %q keeps a newline or tab", in, line)
		}
		if d := corpus.WidthDisagreement(line); d != "" {
			t.Fatalf("SanitizeLine(%+q): %s", in, d)
		}
	})
}

func BenchmarkSanitizeClean(b *testing.B) {
	s := strings.Repeat("An ordinary subject line with ümlauts ", 4)
	for b.Loop() {
		termtext.Sanitize(s)
	}
}

// mixedBody is n bytes of mail text: mostly ASCII prose with accents,
// typographic quotes, CJK, emoji (with skin tones and ZWJ sequences),
// Devanagari, and the invisible characters of newsletter preheaders.
func mixedBody(n int) string {
	paragraph := "Dear customer, your order #12345 has shipped. Grüße aus Köln – “quoted” text… " +
		"配送状況をご確認ください。 👍🏽 👨\u200d👩\u200d👧 नमस्ते दुनिया \u034f \u200c \u00a0 \u2007 \u00ad\n" +
		"Track it at https://example.com/track?id=12345&utm_source=newsletter\tThanks!\n"
	return strings.Repeat(paragraph, n/len(paragraph)+1)[:n]
}

func BenchmarkSanitize5MB(b *testing.B) {
	body := mixedBody(5 << 20)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		termtext.Sanitize(body)
	}
}

func BenchmarkSanitize5MBASCII(b *testing.B) {
	body := strings.Repeat("Plain ASCII mail text, the common case.\n", 5<<20/40)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		termtext.Sanitize(body)
	}
}

// TestCorpusSanitizesToAgreeingWidths sanitizes every string of every
// corpus mail as the TUI and the CLI do and measures every line.
func TestCorpusSanitizesToAgreeingWidths(t *testing.T) {
	mails, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mails {
		e := m.Email
		lines := []string{e.Subject, e.From}
		lines = append(lines, e.To...)
		for name, value := range e.Headers {
			lines = append(lines, name, value)
		}
		for _, a := range e.Attachments {
			lines = append(lines, a.Filename, a.ContentType)
		}
		for _, line := range lines {
			corpus.AssertWidthsAgree(t, m.Name+" field", termtext.SanitizeLine(line))
		}
		for what, text := range map[string]string{"text": e.Text, "html source": e.HTML, "raw": string(m.Raw)} {
			corpus.AssertWidthsAgree(t, m.Name+" "+what, termtext.Sanitize(text))
		}
	}
}

// TestSanitizeReplacesUnassigned checks that code points Go's Unicode tables
// do not assign (emoji newer than Unicode 15, which an older wcwidth draws as
// nothing) become U+FFFD.
func TestSanitizeReplacesUnassigned(t *testing.T) {
	if got := termtext.Sanitize("a \U0001fae9 b \U0001faea"); got != "a \uFFFD b \uFFFD" {
		t.Fatalf("Sanitize kept unassigned code points: %q", got)
	}
	if got := termtext.SanitizeLine("\U0001fae8"); got != "\U0001fae8" {
		t.Fatalf("SanitizeLine replaced an assigned emoji: %q", got)
	}
}
