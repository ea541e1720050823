package search

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// TestFoldEveryCharacter checks fold against x/text's Fold, then NFD with
// marks dropped (each character alone), over every
// character of the first two planes (every character with a case, and
// characters of one to four bytes), in one run and each between ASCII, and
// that foldMapped folds the same way: matching uses one and highlighting the
// other.
func TestFoldEveryCharacter(t *testing.T) {
	var run, interleaved strings.Builder
	for r := rune(0); r < 0x20000; r++ {
		if utf8.ValidRune(r) {
			run.WriteRune(r)
			interleaved.WriteString("A" + string(r))
		}
	}
	caser := transform.Chain(cases.Fold(), norm.NFD, runes.Remove(runes.Predicate(isMark)))
	str := func(s string) string { out, _, _ := transform.String(caser, s); return out }
	for _, s := range []string{run.String(), interleaved.String()} {
		var b strings.Builder
		for _, r := range s {
			b.WriteString(str(string(r)))
		}
		want := b.String()
		if fold(s) == want && foldMapped(s).text == want {
			continue
		}
		for _, r := range s {
			if want, got, mapped := str(string(r)), fold(string(r)), foldMapped(string(r)).text; got != want || mapped != want {
				t.Errorf("%U: fold %q, foldMapped %q, want %q", r, got, mapped, want)
			}
		}
		t.Fatal("fold differs from x/text's Fold on long text")
	}
}

func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"already lower", "already lower"},
		{"MiXeD ASCII", "mixed ascii"},
		{"Straße ẞ", "strasse ss"},
		{"ﬁ ﬃ", "fi ffi"},
		{"İ", "i"},
		{"Café CAFÉ cafe\u0301 Ärger", "cafe cafe cafe arger"},
		{"ΟΔΟΣ ς", "οδοσ σ"},
		{"東京 Ｔｏｋｙｏ", "東京 ｔｏｋｙｏ"},
		{"bad \xff\xe6\x9d UTF-8 Ä", "bad \xff\xe6\x9d utf-8 a"},
	} {
		if got := fold(tc.in); got != tc.want {
			t.Errorf("fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := foldMapped(tc.in).text; got != tc.want {
			t.Errorf("foldMapped(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFoldKeepsLowercaseASCIIWithoutCopying(t *testing.T) {
	s := "nothing to fold here"
	if n := testing.AllocsPerRun(100, func() { _ = fold(s) }); n != 0 {
		t.Errorf("fold of lowercase ASCII allocates %v times, want 0", n)
	}
}
