package model

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// wcwidth is the independent oracle: go-runewidth's per-character widths
// with East Asian ambiguous characters narrow, summed as wcwidth and tmux
// advance the cursor.
var wcwidth = &runewidth.Condition{EastAsianWidth: false}

func oracleWidth(s string) int {
	n := 0
	for _, r := range s {
		n += wcwidth.RuneWidth(r)
	}
	return n
}

// widthDisagreement describes how the width functions disagree on line, or
// returns "" when they all agree.
func widthDisagreement(line string) string {
	w := TextWidth(line)
	plain := ansi.Strip(line)
	got := map[string]int{
		"ansi.StringWidth":      ansi.StringWidth(line),
		"ansi.StringWidthWc":    ansi.StringWidthWc(line),
		"runewidth oracle":      oracleWidth(plain),
		"runewidth.StringWidth": wcwidth.StringWidth(plain),
	}
	var diffs []string
	for name, n := range got {
		if n != w {
			diffs = append(diffs, fmt.Sprintf("%s=%d", name, n))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("TextWidth=%d but %s", w, strings.Join(diffs, ", "))
}

// assertWidthsAgree fails unless every line of s measures the same by every
// width function.
func assertWidthsAgree(t testing.TB, s string) {
	t.Helper()
	for _, line := range strings.Split(s, "\n") {
		if d := widthDisagreement(line); d != "" {
			t.Fatalf("line %q (%+q): %s", line, line, d)
		}
	}
}

// conflictRanges computes the characters widthConflicts must hold.
func conflictRanges() []unicode.Range32 {
	var out []unicode.Range32
	for r := rune(0x20); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff || removedRune(r) || isRegionalIndicator(r) || r == '\u2028' || r == '\u2029' {
			continue
		}
		s := string(r)
		g, wc, rw := ansi.StringWidth(s), ansi.StringWidthWc(s), wcwidth.RuneWidth(r)
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
	for _, r := range widthConflicts.R16 {
		have = append(have, unicode.Range32{Lo: uint32(r.Lo), Hi: uint32(r.Hi), Stride: 1})
	}
	have = append(have, widthConflicts.R32...)
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
