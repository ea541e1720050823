package mailparse

import (
	"strings"
	"unicode/utf8"
)

// validUTF8 returns b as a valid UTF-8 string. Valid sequences are kept;
// every byte that is not part of one is read as ISO-8859-1, so no byte is
// dropped and 8-bit junk stays readable.
func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/4)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			sb.WriteRune(rune(b[0]))
			b = b[1:]
			continue
		}
		sb.Write(b[:size])
		b = b[size:]
	}
	return sb.String()
}

// validUTF8String is validUTF8 for a string.
func validUTF8String(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return validUTF8([]byte(s))
}
