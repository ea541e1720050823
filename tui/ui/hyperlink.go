package ui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Hyperlink writes text as an OSC 8 hyperlink to target (HyperlinkTarget).
// Wrap and Fit keep such a link whole across lines and cuts.
func Hyperlink(target, text string) string {
	var b strings.Builder
	WriteHyperlink(&b, target, text)
	return b.String()
}

// WriteHyperlink writes Hyperlink(target, text) to b, for text made of
// many links.
func WriteHyperlink(b *strings.Builder, target, text string) {
	b.WriteString(ansi.SetHyperlink(HyperlinkTarget(target)))
	b.WriteString(text)
	b.WriteString(ansi.ResetHyperlink())
}

// HyperlinkTarget is target as an OSC 8 hyperlink carries it: every byte
// outside printable ASCII percent-encoded, as the OSC 8 convention asks, so
// the target cannot end the sequence early.
func HyperlinkTarget(target string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(target))
	for i := 0; i < len(target); i++ {
		if c := target[i]; c > 0x20 && c < 0x7f {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// LinkText makes every occurrence in text of one of links (the longest
// that matches where several start at one place) an OSC 8 hyperlink to
// itself, so a URL the wrapper cuts with "…" can still be followed.
func LinkText(text string, links []string) string {
	if len(links) == 0 {
		return text
	}
	// The links by length, the lengths longest first: a place is matched
	// with one lookup per length, not one comparison per link.
	byLen := map[int]map[string]bool{}
	var lengths []int
	for _, l := range links {
		if l == "" {
			continue
		}
		if byLen[len(l)] == nil {
			byLen[len(l)] = map[string]bool{}
			lengths = append(lengths, len(l))
		}
		byLen[len(l)][l] = true
	}
	slices.SortFunc(lengths, func(a, b int) int { return b - a })
	var b strings.Builder
	for i := 0; i < len(text); {
		best := ""
		for _, n := range lengths {
			if i+n <= len(text) && byLen[n][text[i:i+n]] {
				best = text[i : i+n]
				break
			}
		}
		if best == "" {
			next := nextLinkStart(text, i+1)
			b.WriteString(text[i:next])
			i = next
			continue
		}
		b.WriteString(Hyperlink(best, best))
		i += len(best)
	}
	return b.String()
}

// nextLinkStart is the first index from i where a link can start: an h
// (http, https) or an m (mailto), in any case.
func nextLinkStart(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	j := strings.IndexAny(text[i:], "hHmM")
	if j < 0 {
		return len(text)
	}
	return i + j
}
