package search

import (
	"slices"
	"strings"
)

// Highlights returns where s, the text of field f as it is shown, matches the
// query's positive text terms that search f (free text searches every
// field): byte ranges of s, on character boundaries, sorted, with
// overlapping and touching ranges merged. Matching folds case as searching
// does, so a range may cover a different number of bytes than the term
// ("STRASSE" marks "Straße"); a match inside a character's fold marks the
// whole character. Negated terms and the other operators mark nothing.
func (q Query) Highlights(f Field, s string) []Range {
	var folded *foldedText
	var ranges []Range
	for i := range q.terms {
		t := &q.terms[i]
		if t.kind != kindText || t.negate || !searches(t.field, f) {
			continue
		}
		if folded == nil {
			ft := foldMapped(s)
			folded = &ft
		}
		for from := 0; from < len(folded.text); {
			i := strings.Index(folded.text[from:], t.needle)
			if i < 0 {
				break
			}
			start := from + i
			ranges = append(ranges, folded.span(s, start, start+len(t.needle)))
			from = start + 1
		}
	}
	return merge(ranges)
}

// merge sorts ranges and joins those that overlap or touch.
func merge(ranges []Range) []Range {
	if len(ranges) < 2 {
		return ranges
	}
	slices.SortFunc(ranges, func(a, b Range) int { return a.Start - b.Start })
	out := ranges[:1]
	for _, r := range ranges[1:] {
		last := &out[len(out)-1]
		if r.Start <= last.End {
			last.End = max(last.End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}
