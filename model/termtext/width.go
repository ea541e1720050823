package termtext

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/uax29/v2/graphemes"
	"golang.org/x/text/unicode/norm"
)

// Width is how many terminal cells s occupies: the one width function
// the TUI and the CLI lay text out with. Escape sequences (styling,
// hyperlinks) take no cells; a tab counts 0, so callers expand tabs first.
//
// For text that went through Sanitize or SanitizeLine, Width agrees
// with lipgloss and x/ansi (ansi.StringWidth, which measures grapheme
// clusters as terminals in mode 2027 do), with the cell buffer of Bubble Tea
// in either width mode (ansi.WcWidth sums characters as wcwidth and tmux
// do), and with go-runewidth; East Asian ambiguous characters are narrow.
func Width(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// clusterBreak separates the parts of a grapheme cluster that Sanitize
// breaks up: the zero width space, a control for grapheme segmentation (a
// cluster ends at it) that every width function, wcwidth included, gives 0
// cells.
const clusterBreak = "\u200b"

// agreeWidths makes every grapheme cluster of s (already filtered) as wide
// by cluster as by character. A terminal without mode 2027 (and Bubble
// Tea's cell buffer then) advances by each character's wcwidth, while
// lipgloss measures clusters by their first character: a cluster where the
// two disagree, such as a Devanagari consonant with a spacing vowel sign, an
// emoji with a skin-tone modifier or a decomposed Hangul syllable, would
// shift everything after it on the line. Such a cluster is composed (NFC)
// if that makes the widths agree (decomposed Hangul), and otherwise broken
// into its parts, one per character that takes cells, each followed by its
// zero-width marks, with clusterBreak between them: exactly what a wcwidth
// terminal draws. A lone regional indicator (half a flag; 2 cells by
// cluster, 1 by character) becomes its letter.
//
// A space that marks follow (a cluster of its own to segmentation) gets a
// clusterBreak after it, so that every space is a cluster alone: a line
// breaks at spaces and drops them (tui/ui's wrap) without taking the marks.
//
// The text also stays agreeing when it is put next to other text: a
// cluster at the start of the text or of a line, or after a tab, that would
// join what is written before it (a lone mark) gets a clusterBreak before
// it, and one at an end, or before a tab, that would join what follows (a
// prepended sign) gets one after it. So a label before a field, the spaces
// that pad a line and those a tab is expanded to cannot change its width.
func agreeWidths(s string) string {
	var b strings.Builder
	var clusters *graphemes.Iterator[string]
	kept := 0 // s[kept:pos] is unchanged and not yet written to b
	for pos := 0; pos < len(s); {
		next := pos
		for next < len(s) && s[next] < utf8.RuneSelf {
			next++
		}
		if next == len(s) {
			break
		}
		if next > pos {
			next-- // the last ASCII character may start the cluster
		}
		pos = next
		if clusters == nil {
			clusters = graphemes.FromString(s[pos:])
		} else {
			clusters.SetText(s[pos:])
		}
		for clusters.Next() {
			cluster := clusters.Value()
			fixed, ok := agreeCluster(cluster)
			if cluster[0] == ' ' && len(cluster) > 1 {
				// A space is a cluster of its own, which a line may break
				// at and drop; the marks it carried stand alone after it.
				rest, _ := agreeCluster(cluster[1:])
				fixed, ok = " "+clusterBreak+rest, false
			}
			if (pos == 0 || isLineBreak(s[pos-1])) && joins(" ", fixed) {
				fixed, ok = clusterBreak+fixed, false
			}
			if end := pos + len(cluster); (end == len(s) || isLineBreak(s[end])) && joins(fixed, " ") {
				fixed, ok = fixed+clusterBreak, false
			}
			if !ok {
				if b.Cap() == 0 {
					b.Grow(len(s) + len(s)/8)
				}
				b.WriteString(s[kept:pos])
				b.WriteString(fixed)
				kept = pos + len(cluster)
			}
			pos += len(cluster)
			if pos < len(s) && s[pos] < utf8.RuneSelf {
				break
			}
		}
	}
	if kept == 0 {
		return s
	}
	b.WriteString(s[kept:])
	return b.String()
}

// agreeCluster returns cluster and true when its widths agree, or the text
// to put in its place.
func agreeCluster(cluster string) (string, bool) {
	r, size := utf8.DecodeRuneInString(cluster)
	if size == len(cluster) {
		if isRegionalIndicator(r) {
			return regionalLetter(r), false
		}
		return cluster, true
	}
	if widthsAgree(cluster) {
		return cluster, true
	}
	if isConjoiningJamo(r) {
		if composed := norm.NFC.String(cluster); widthsAgree(composed) {
			return composed, false
		}
	}
	return splitCluster(cluster), false
}

// widthsAgree reports whether s is as wide by cluster as by character.
func widthsAgree(s string) bool {
	return ansi.StringWidth(s) == ansi.StringWidthWc(s)
}

// splitCluster breaks a cluster into parts, each one character that takes
// cells followed by its zero-width marks. A part whose widths still disagree
// has its first character replaced. clusterBreak goes between two parts only
// where they would otherwise join into one cluster again.
func splitCluster(cluster string) string {
	var b strings.Builder
	run := 0 // b.String()[run:] is what the next part could join
	add := func(part string) {
		if b.Len() > 0 && joins(b.String()[run:], part) {
			b.WriteString(clusterBreak)
			run = b.Len()
		}
		b.WriteString(part)
	}
	start := 0
	for i, r := range cluster {
		if i > start && ansi.StringWidthWc(cluster[i:i+utf8.RuneLen(r)]) > 0 {
			add(agreePart(cluster[start:i]))
			start = i
		}
	}
	add(agreePart(cluster[start:]))
	return b.String()
}

// joins reports whether next, written right after before, would continue
// before's last grapheme cluster.
func joins(before, next string) bool {
	clusters := graphemes.FromString(before + next)
	for clusters.Next() {
		if end := clusters.End(); end >= len(before) {
			return end > len(before)
		}
	}
	return false
}

// agreePart returns part if its widths agree; otherwise its first character
// gives way to its letter (a regional indicator) or U+FFFD.
func agreePart(part string) string {
	if widthsAgree(part) {
		return part
	}
	r, size := utf8.DecodeRuneInString(part)
	first := "\uFFFD"
	if isRegionalIndicator(r) {
		first = regionalLetter(r)
	}
	if replaced := first + part[size:]; widthsAgree(replaced) {
		return replaced
	}
	return "\uFFFD"
}

// isLineBreak reports a newline or a tab, the controls the text keeps.
func isLineBreak(c byte) bool { return c == '\n' || c == '\t' }

// isConjoiningJamo reports a Hangul jamo that composes with the ones after
// it into a syllable, the one kind of cluster that composing makes agree.
func isConjoiningJamo(r rune) bool {
	return (r >= 0x1100 && r <= 0x11ff) || (r >= 0xa960 && r <= 0xa97f) || (r >= 0xd7b0 && r <= 0xd7ff)
}

// isRegionalIndicator reports a regional indicator symbol (half a flag).
func isRegionalIndicator(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }

// regionalLetter is the letter a regional indicator stands for.
func regionalLetter(r rune) string { return string('A' + r - 0x1f1e6) }
