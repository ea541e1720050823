package model

import (
	"strings"
	"unicode/utf8"
)

// SanitizeText makes untrusted text safe to print on a terminal: it removes
// escape sequences (CSI, OSC, DCS and other ESC-introduced strings), C0
// controls other than tab and newline, DEL, C1 controls and Unicode bidi
// controls, and replaces invalid UTF-8. Carriage returns are dropped so a
// line cannot overwrite itself.
func SanitizeText(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
			i++
			continue
		case r == 0x1b:
			i += escapeLength(s[i:])
			continue
		case r == 0x9b || r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f:
			// 8-bit CSI, OSC, DCS, SOS, PM, APC: drop the whole sequence.
			i += size + stringBodyLength(s[i+size:], r == 0x9b)
			continue
		case unsafeRune(r):
			i += size
			continue
		}
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// SanitizeLine is SanitizeText for one-line fields (subjects, addresses, file
// names): newlines and tabs become spaces too.
func SanitizeLine(s string) string {
	s = SanitizeText(s)
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

// isClean reports whether s needs no changes, the common case.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f || c >= 0x80 {
			return c >= 0x80 && cleanFrom(s[i:])
		}
	}
	return true
}

// cleanFrom checks the rest of s rune by rune once non-ASCII was seen.
func cleanFrom(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// unsafeRune reports control and bidi characters that must not reach a terminal.
func unsafeRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
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
