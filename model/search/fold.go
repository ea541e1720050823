package search

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// fold returns s in the form every comparison uses: Unicode full case
// folding (golang.org/x/text/cases.Fold), so "STRASSE" and "straße" meet as
// "strasse" and "ﬁle" as "file", then without accents (canonical
// decomposition, nonspacing marks dropped), so "cafe" and "Café" meet as
// "cafe". Folding is per character, without context, so fold(s) equals the
// concatenation of the folds of s's characters; invalid UTF-8 bytes pass
// through unchanged.
func fold(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && !isUpperASCII(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	out := make([]byte, 0, len(s)+len(s)/8)
	out = append(out, s[:i]...)
	var src []byte // s as bytes, made at the first non-ASCII character
	caser := newFolder()
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			out = append(out, lowerASCII(s[i]))
			i++
			continue
		}
		if r, size := utf8.DecodeRuneInString(s[i:]); r == utf8.RuneError && size == 1 {
			out = append(out, s[i])
			i++
			continue
		}
		if src == nil {
			src = []byte(s)
		}
		end := i
		for end < len(s) && s[end] >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[end:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			end += size
		}
		out = appendFolded(out, caser, src[i:end])
		i = end
	}
	return string(out)
}

// foldedText is a fold of some text together with, for each byte of the
// fold, the offset in the text of the character it came from, so a match in
// the fold maps back to whole characters of the text.
type foldedText struct {
	text   string
	origin []int // nil when every byte kept its offset (ASCII text)
}

// foldMapped folds s character by character, recording origins.
func foldMapped(s string) foldedText {
	if isASCII(s) {
		return foldedText{text: fold(s)}
	}
	out := make([]byte, 0, len(s)+len(s)/4)
	origin := make([]int, 0, cap(out))
	src := []byte(s)
	caser := newFolder()
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		before := len(out)
		if size == 1 {
			out = append(out, lowerASCII(s[i])) // ASCII, or an invalid byte kept
		} else {
			out = appendFolded(out, caser, src[i:i+size])
		}
		for range len(out) - before {
			origin = append(origin, i)
		}
		i += size
	}
	return foldedText{text: string(out), origin: origin}
}

// span maps the fold's bytes [start, end) back to a range of s, the text
// that was folded: from the start of the first character involved to the
// end of the last.
func (f foldedText) span(s string, start, end int) Range {
	if f.origin == nil {
		return Range{Start: start, End: end}
	}
	last := f.origin[end-1]
	_, size := utf8.DecodeRuneInString(s[last:])
	return Range{Start: f.origin[start], End: last + size}
}

// newFolder is the transformation fold applies to non-ASCII text: case
// folding, then accents removed.
func newFolder() transform.Transformer {
	return transform.Chain(cases.Fold(), norm.NFD, runes.Remove(runes.Predicate(isMark)))
}

// isMark reports a character decomposition leaves as an accent: a
// nonspacing mark, or any combining character (canonical combining class
// not 0: the only characters NFD reorders, so dropping them all keeps the
// fold of a text the folds of its characters, one after the other).
func isMark(r rune) bool {
	return unicode.Is(unicode.Mn, r) || norm.NFD.PropertiesString(string(r)).CCC() != 0
}

// appendFolded appends the fold of src, whole characters, to dst.
func appendFolded(dst []byte, caser transform.Transformer, src []byte) []byte {
	caser.Reset()
	for len(src) > 0 {
		// A character folds to at most three characters of three bytes
		// (decomposed: a few more).
		dst = slices.Grow(dst, 4*len(src)+6*utf8.UTFMax)
		nDst, nSrc, err := caser.Transform(dst[len(dst):cap(dst)], src, true)
		dst = dst[:len(dst)+nDst]
		src = src[nSrc:]
		if err != nil && err != transform.ErrShortDst || nDst == 0 && nSrc == 0 {
			// Folding does not fail; should it, the bytes are kept as they are.
			return append(dst, src...)
		}
	}
	return dst
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isUpperASCII(c byte) bool { return 'A' <= c && c <= 'Z' }

// lowerASCII lowers an ASCII capital; any other byte is returned unchanged.
func lowerASCII(c byte) byte {
	if isUpperASCII(c) {
		return c + 'a' - 'A'
	}
	return c
}
