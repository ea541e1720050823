package ui

import (
	"math/rand/v2"
	"strings"
	"testing"

	"sandview/model/termtext"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/uax29/v2/graphemes"
)

// assertWrapKeepsText fails unless wrapping the one-line paragraph to
// width loses nothing but the spaces at the breaks, splits no grapheme
// cluster and keeps every line within width.
func assertWrapKeepsText(t *testing.T, paragraph string, width int) {
	t.Helper()
	lines := Wrap(paragraph, width)
	rest := paragraph
	clusters, cutURL := 0, false
	for i, l := range lines {
		if w := termtext.Width(l); w > width && termtext.Width(firstCluster(l)) <= width {
			t.Fatalf("width %d: line %d is %d cells: %q", width, i, w, l)
		}
		if cut, ok := strings.CutSuffix(l, "…"); ok && !strings.HasPrefix(rest, l) && strings.HasPrefix(strings.TrimLeft(rest, " "), cut) {
			rest = strings.TrimLeft(rest, " ")
			// A URL longer than the line, cut: the rest of it is not shown.
			word, _, _ := strings.Cut(rest, " ")
			if !isURLWord(word) || len(word) <= len(cut) {
				t.Fatalf("width %d: line %d %q is cut, but %q is no URL too long for it", width, i, l, word)
			}
			rest = strings.TrimLeft(rest[len(word):], " ")
			clusters += graphemeCount(word)
			cutURL = true
			continue
		}
		if !strings.HasPrefix(rest, l) {
			t.Fatalf("width %d: line %d %q is not what follows in the text: %q", width, i, l, rest[:min(len(rest), len(l)+20)])
		}
		rest = strings.TrimLeft(rest[len(l):], " ")
		clusters += graphemeCount(l)
	}
	if rest != "" {
		t.Fatalf("width %d: lost %q", width, rest)
	}
	dropped := len(paragraph) - len(strings.Join(lines, ""))
	if !cutURL && clusters+dropped != graphemeCount(paragraph) {
		t.Fatalf("width %d: a grapheme cluster was split in %q: %q", width, paragraph, lines)
	}
}

// isURLWord is the rule of WrapHanging for a word that is a URL.
func isURLWord(word string) bool {
	w := strings.ToLower(word)
	return strings.Contains(w, "://") || strings.HasPrefix(strings.TrimLeft(w, "<(\"'["), "mailto:")
}

func firstCluster(s string) string { return graphemes.FromString(s).First() }

func graphemeCount(s string) int {
	n := 0
	for it := graphemes.FromString(s); it.Next(); {
		n++
	}
	return n
}

// trickyPieces are what hostile text is made of: marks, joiners that
// sanitizing removes, wide characters, emoji sequences, Indic clusters,
// hyphens, runs of spaces and long unbreakable words.
var trickyPieces = []string{
	"a", "word", " ", "   ", "-", "e\u0301", "\u00ad", "\u200d", "👨‍👩‍👧", "👍🏽", "🇩🇪", "日本語", "ｶﾀｶﾅ",
	"क्षि", "ᄀ\u1161", "مرحبا", "\u202e", "https://example.com/a/very/long/path?x=1&y=2", "c.ex", "d.example",
	"\u3000", "\t",
}

func TestWrapLosesNothing(t *testing.T) {
	// The header that lost "ample": a break right after a dot.
	assertWrapKeepsText(t, "from c.ex by d.example with ESMTP id 42", 9)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		var b strings.Builder
		for range rng.IntN(40) + 1 {
			b.WriteString(trickyPieces[rng.IntN(len(trickyPieces))])
		}
		line := termtext.SanitizeLine(b.String())
		for _, width := range []int{1, 2, 3, 7, 20, 61} {
			assertWrapKeepsText(t, line, width)
		}
	}
}

func TestWrapHanging(t *testing.T) {
	got := WrapHanging("Received: from a.example by b.example", 20, 16)
	want := []string{"Received: from", "a.example by", "b.example"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := Wrap("a\n\nb\n", 5); strings.Join(got, "|") != "a||b|" {
		t.Fatalf("paragraphs: %q", got)
	}
	if got := Wrap("ab\tc", 10); got[0] != "ab    c" {
		t.Fatalf("tab: %q", got)
	}
}

// TestWrapKeepsStylesPerLine checks that a style or hyperlink open at a
// break is closed at the end of the line and opened again on the next.
func TestWrapKeepsStylesPerLine(t *testing.T) {
	link := "\x1b]8;;https://example.com/x\a"
	text := "\x1b[1mbold words here\x1b[m and " + link + "a link with long text\x1b]8;;\a end"
	lines := Wrap(text, 8)
	var plain []string
	for i, l := range lines {
		if w := termtext.Width(l); w > 8 {
			t.Fatalf("line %d is %d cells: %q", i, w, l)
		}
		if strings.Count(l, "\x1b]8;;") != 0 && strings.Count(l, "\x1b]8;;")%2 != 0 {
			t.Fatalf("line %d leaves a hyperlink open: %q", i, l)
		}
		if i := strings.LastIndex(l, "\x1b[1m"); i >= 0 && !strings.Contains(l[i:], "\x1b[m") {
			t.Fatalf("line %d leaves bold open: %q", i, l)
		}
		plain = append(plain, ansi.Strip(l))
	}
	if got, want := strings.Join(plain, " "), ansi.Strip(text); got != want {
		t.Fatalf("text changed:\n got %q\nwant %q", got, want)
	}
	if !strings.HasPrefix(lines[len(lines)-2], link) {
		t.Fatalf("the link is not opened again on its second line: %q", lines)
	}
}

func FuzzWrap(f *testing.F) {
	for _, s := range trickyPieces {
		f.Add(s+" "+s+s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, width int) {
		line := strings.ReplaceAll(termtext.SanitizeLine(s), "\t", " ")
		assertWrapKeepsText(t, line, 1+(width&63))
	})
}

func TestFitMeasuresByTextWidth(t *testing.T) {
	for _, s := range []string{"👨‍👩‍👧 family", "日本語のテキスト", "e\u0301te\u0301", "plain"} {
		s = termtext.SanitizeLine(s)
		for w := 1; w < 14; w++ {
			if got := termtext.Width(Fit(s, w)); got != w {
				t.Fatalf("Fit(%q, %d) is %d cells", s, w, got)
			}
			if got := termtext.Width(FitRight(s, w)); got != w {
				t.Fatalf("FitRight(%q, %d) is %d cells", s, w, got)
			}
		}
	}
}

// TestWrapNeverBreaksURLs: a URL is never broken at its hyphens or
// anywhere inside; one too long for a line is alone on its line, cut
// with "…", and a hyperlink around it stays whole.
func TestWrapNeverBreaksURLs(t *testing.T) {
	long := "https://very-long-host-name.example/path/to-a-product?ref=news-letter-2025"
	text := "Order at https://acme-shop.example/p/1 today-ish and " + long + " end."
	got := Wrap(text, 40)
	want := []string{"Order at https://acme-shop.example/p/1", "today-ish and", long[:39] + "…", "end."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// Hanging lines, mailto and a URL in brackets.
	got = WrapHanging("Links: <mailto:someone-with-a-long-name@example.com> (https://a-b.example/c-d)", 30, 26)
	want = []string{"Links:", "<mailto:someone-with-a-lo…", "(https://a-b.example/c-d)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// A mail address is not broken at its hyphens.
	got = WrapHanging("From      Acme Shop <orders@acme-shop.example>", 40, 30)
	want = []string{"From      Acme Shop", "<orders@acme-shop.example>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// A hyperlink around a cut URL keeps its whole target and is closed.
	open := "\x1b]8;;" + long + "\a"
	got = Wrap("see "+open+long+"\x1b]8;;\a now", 20)
	if len(got) != 3 || ansi.Strip(got[1]) != long[:19]+"…" || !strings.HasPrefix(got[1], open) || !strings.HasSuffix(got[1], "\x1b]8;;\a") {
		t.Fatalf("the cut hyperlinked URL: %q", got)
	}
	for i, l := range got {
		if w := termtext.Width(l); w > 20 {
			t.Fatalf("line %d is %d cells: %q", i, w, l)
		}
	}
}
