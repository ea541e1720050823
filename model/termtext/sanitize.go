package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/rangetable"
)

// Sanitize makes untrusted text safe to print on a terminal and as wide
// there as Width says. It removes escape sequences (CSI, OSC, DCS and
// other ESC-introduced strings), C0 controls other than tab and newline, DEL
// and C1 controls; it removes the invisible characters that terminals draw
// inconsistently (every format character, such as the soft hyphen, the zero
// width space and joiners, the bidi controls and the tag characters, and the
// other default-ignorable code points, such as the variation selectors and
// the combining grapheme joiner); it turns the Unicode line and paragraph
// separators into newlines, replaces invalid UTF-8, the few characters whose
// width the width tables disagree on and the code points Go's Unicode tables
// do not assign (newer emoji that an older terminal's wcwidth does not know
// and draws as nothing) with U+FFFD, and carriage returns
// are dropped so a line cannot overwrite itself. Last, it makes every
// grapheme cluster as wide as the sum of its characters' widths, so that a
// terminal that lays out character by character (wcwidth, tmux) and one that
// lays out by cluster (mode 2027) agree with Width; see agreeWidths.
//
// Sanitize is idempotent, and plain ASCII text is returned as it is.
func Sanitize(s string) string {
	if isPlainASCII(s) {
		return s
	}
	filtered, combines := filterRunes(s)
	if !combines {
		return filtered
	}
	return agreeWidths(filtered)
}

// SanitizeLine is Sanitize for one-line fields (subjects, addresses, file
// names): newlines and tabs become spaces too.
func SanitizeLine(s string) string {
	if isPlainASCII(s) {
		return spaceLineBreaks(s)
	}
	// Spaces join clusters that tabs and newlines break, so they go in
	// before the widths are made to agree.
	filtered, combines := filterRunes(s)
	if !combines {
		return spaceLineBreaks(filtered)
	}
	return agreeWidths(spaceLineBreaks(filtered))
}

// spaceLineBreaks turns newlines and tabs into spaces.
func spaceLineBreaks(s string) string {
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// isPlainASCII reports whether s is printable ASCII, tabs and newlines only:
// the common case, which needs no changes.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f {
			return false
		}
	}
	return true
}

// invisibleRunes are removed from untrusted text: format characters (Cf)
// and the other default-ignorable code points. Terminals disagree on their
// width (wcwidth gives the soft hyphen 1 cell, x/ansi 0), and the joiners
// and selectors among them merge characters into clusters that terminals
// draw at different widths.
var invisibleRunes = rangetable.Merge(unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)

// removedRune reports a character that never survives sanitization.
func removedRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return true
	case r < 0xa0:
		return false
	case r < 0x34f:
		return r == 0xad // the only format character in between
	}
	return unicode.Is(invisibleRunes, r)
}

// firstCombining is where the characters that can join others into a
// grapheme cluster begin (the combining diacritical marks); below it, every
// character is a cluster of its own.
const firstCombining = 0x300

// filterRunes removes escape sequences and removed runes and makes the
// replacements Sanitize describes, copying only when something changes.
// combines reports a character at or above firstCombining in the result.
func filterRunes(s string) (filtered string, combines bool) {
	var b strings.Builder
	kept := 0 // s[kept:i] is unchanged and not yet written to b
	for i := 0; i < len(s); {
		c := s[i]
		if (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' {
			i++
			continue
		}
		skip, replacement := runeFilter(s[i:])
		if skip == 0 {
			r, size := utf8.DecodeRuneInString(s[i:])
			combines = combines || r >= firstCombining
			i += size
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[kept:i])
		b.WriteString(replacement)
		i += skip
		kept = i
	}
	if kept == 0 {
		return s, combines
	}
	b.WriteString(s[kept:])
	return b.String(), combines
}

// runeFilter decides about the character or sequence at the start of s
// (which does not start with printable ASCII, tab or newline): skip is how
// many bytes to drop (0: keep the rune) and replacement what to write instead.
func runeFilter(s string) (skip int, replacement string) {
	if s[0] == 0x1b {
		return escapeLength(s), ""
	}
	if s[0] < 0x80 {
		return 1, "" // C0 control or DEL
	}
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		return 1, "\uFFFD"
	case r == 0x9b || r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f:
		// 8-bit CSI, OSC, DCS, SOS, PM, APC: drop the whole sequence.
		return size + stringBodyLength(s[size:], r == 0x9b), ""
	case r == '\u2028' || r == '\u2029':
		return size, "\n"
	case removedRune(r):
		return size, ""
	case unicode.Is(widthConflicts, r), unicode.Is(unicode.Cn, r):
		return size, "\uFFFD"
	}
	return 0, ""
}

// escapeLength is the byte length of the escape sequence at the start of s
// (which begins with ESC).
func escapeLength(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + stringBodyLength(s[2:], true)
	case ']', 'P', 'X', '^', '_':
		return 2 + stringBodyLength(s[2:], false)
	}
	// Two-byte sequences (ESC c, ESC 7, ...) and charset selections (ESC ( B).
	if s[1] >= 0x20 && s[1] <= 0x2f && len(s) >= 3 {
		return 3
	}
	return 2
}

// stringBodyLength measures the body of a control sequence: a CSI ends at a
// final byte in 0x40..0x7e; OSC/DCS-like strings end at BEL, ST (ESC \) or
// the 8-bit ST. An unterminated sequence runs to the end of s.
func stringBodyLength(s string, csi bool) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if csi {
			if c >= 0x40 && c <= 0x7e {
				return i + 1
			}
			if c < 0x20 || c > 0x7e {
				return i
			}
			continue
		}
		switch {
		case c == 0x07:
			return i + 1
		case c == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case c == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
			return i + 2
		}
	}
	return len(s)
}
