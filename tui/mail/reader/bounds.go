package reader

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"sandview/model"
)

// What the reader keeps of one email, whatever its sender made it: a
// hostile mail's render is cut, not grown, so one session's memory stays
// bounded (a 12 MB mail of 330,000 links: see BenchmarkOpenHostileLinksMail).
// The whole mail is still saved (s) or downloaded as sent.
const (
	maxPartBytes   = 1 << 20 // of the text part, and of the HTML part
	MaxLinks       = 10_000
	maxSourceBytes = 2 << 20 // of the raw source the Raw and Headers tabs show
)

// cutMarker ends a part or a source cut at its limit.
func cutMarker(what string, rest int) string {
	return fmt.Sprintf("\n\n[sandview: %s is cut here, %.1f MB more are not shown; s saves the whole mail]\n", what, float64(rest)/(1<<20))
}

// cutText is s cut at limit bytes (on a character's start), with the
// marker saying so; s itself when it fits.
func cutText(s string, limit int, what string) string {
	if len(s) <= limit {
		return s
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + cutMarker(what, len(s)-n)
}

// Bounded is m within the reader's limits.
func Bounded(m model.Email) model.Email {
	m.Text = cutText(m.Text, maxPartBytes, "the text part")
	if len(m.HTML) > maxPartBytes {
		// Cut before the last tag that starts within the limit, so the
		// marker is text, not the inside of a tag.
		limit := maxPartBytes
		if i := strings.LastIndexByte(m.HTML[:limit], '<'); i > 0 {
			limit = i
		}
		m.HTML = m.HTML[:limit] + cutMarker("the HTML part", len(m.HTML)-limit)
	}
	if len(m.Links) > MaxLinks {
		m.Links = m.Links[:MaxLinks:MaxLinks]
	}
	return m
}

// boundedSource is raw within maxSourceBytes.
func boundedSource(raw []byte) []byte {
	if len(raw) <= maxSourceBytes {
		return raw
	}
	n := maxSourceBytes
	for n > 0 && !utf8.RuneStart(raw[n]) {
		n--
	}
	return append(raw[:n:n], cutMarker("the raw source", len(raw)-n)...)
}
