package termtext_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/uax29/v2/graphemes"

	"sandview/model/termtext"
	"sandview/tui/corpus"
)

func TestWidth(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"plain ascii", 11},
		{"日本語", 6},
		{"\x1b[1mbold\x1b[0m", 4},
		{"\x1b]8;;https://x.test\x07link\x1b]8;;\x07", 4},
		{"👨👩👧👦", 8},
		{"a\tb", 2},
		{"é…’", 3},
	} {
		if got := termtext.Width(tt.in); got != tt.want {
			t.Errorf("Width(%q) = %d; want %d", tt.in, got, tt.want)
		}
		if got := ansi.StringWidth(tt.in); got != tt.want {
			t.Errorf("ansi.StringWidth(%q) = %d; want %d", tt.in, got, tt.want)
		}
	}
}

// conflictRanges computes the characters termtext.WidthConflicts must hold.
func conflictRanges() []unicode.Range32 {
	var out []unicode.Range32
	for r := rune(0x20); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff || termtext.RemovedRune(r) || termtext.IsRegionalIndicator(r) || r == '\u2028' || r == '\u2029' {
			continue
		}
		s := string(r)
		g, wc, rw := ansi.StringWidth(s), ansi.StringWidthWc(s), corpus.OracleRuneWidth(r)
		if g == wc && wc == rw {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Hi == uint32(r)-1 {
			out[n-1].Hi = uint32(r)
			continue
		}
		out = append(out, unicode.Range32{Lo: uint32(r), Hi: uint32(r), Stride: 1})
	}
	return out
}

func TestWidthConflictsAreCurrent(t *testing.T) {
	want := conflictRanges()
	var have []unicode.Range32
	for _, r := range termtext.WidthConflicts.R16 {
		have = append(have, unicode.Range32{Lo: uint32(r.Lo), Hi: uint32(r.Hi), Stride: 1})
	}
	have = append(have, termtext.WidthConflicts.R32...)
	if fmt.Sprint(have) == fmt.Sprint(want) {
		return
	}
	var b strings.Builder
	b.WriteString("widthConflicts is out of date; replace it with:\n\nvar widthConflicts = &unicode.RangeTable{\n\tR16: []unicode.Range16{\n")
	for _, r := range want {
		if r.Hi <= 0xffff {
			fmt.Fprintf(&b, "\t\t{Lo: 0x%04x, Hi: 0x%04x, Stride: 1},\n", r.Lo, r.Hi)
		}
	}
	b.WriteString("\t},\n\tR32: []unicode.Range32{\n")
	for _, r := range want {
		if r.Hi > 0xffff {
			fmt.Fprintf(&b, "\t\t{Lo: 0x%x, Hi: 0x%x, Stride: 1},\n", r.Lo, r.Hi)
		}
	}
	b.WriteString("\t},\n}\n")
	t.Fatal(b.String())
}

// TestSpaceStandsAlone: a space that marks follow (one grapheme cluster
// to segmentation) is made a cluster of its own, so that a line can break
// at it and drop it without taking the marks (tui/ui's wrap; the FuzzWrap
// inputs of a Devanagari virama and an acute accent after spaces); the
// marks are kept.
func TestSpaceStandsAlone(t *testing.T) {
	for in, mark := range map[string]string{"क्षि     ्क्षि": "\u094d", "a  \u0301b": "\u0301", "x \u093e": "\u093e"} {
		got := termtext.SanitizeLine(in)
		if strings.Count(got, mark) != strings.Count(in, mark) {
			t.Errorf("SanitizeLine(%+q) = %+q lost a mark", in, got)
		}
		for it := graphemes.FromString(got); it.Next(); {
			if c := it.Value(); c[0] == ' ' && len(c) > 1 {
				t.Errorf("SanitizeLine(%+q) = %+q: the cluster %+q holds a space", in, got, c)
			}
		}
	}
}
