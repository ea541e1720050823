package htmlcompat

import (
	"regexp"
	"strings"
)

// pseudoPattern finds pseudo-classes (:hover) and pseudo-elements
// (::before, and the legacy :before).
var pseudoPattern = regexp.MustCompile(`(::?)([a-z][a-z-]*)`)

// legacyPseudoElements are pseudo-elements also written with one colon.
var legacyPseudoElements = map[string]bool{"before": true, "after": true, "first-letter": true, "first-line": true}

// selectors records a rule's selector list: grouping, combinators,
// simple selectors, chaining and pseudo-classes and elements.
func selectors(u uses, prelude string) {
	list := splitOutside(prelude, ',')
	if len(list) > 1 {
		u.add("css-selector-grouping")
	}
	for _, sel := range list {
		selector(u, strings.ToLower(strings.TrimSpace(sel)))
	}
}

func selector(u uses, sel string) {
	for _, m := range pseudoPattern.FindAllStringSubmatch(sel, -1) {
		if m[1] == "::" || legacyPseudoElements[m[2]] {
			u.add("css-pseudo-element-" + m[2])
		} else {
			u.add("css-pseudo-class-" + m[2])
		}
	}
	sel = blank(blank(sel, '[', ']'), '(', ')')
	combinators := 0
	for c, slug := range map[string]string{">": "css-selector-child", "+": "css-selector-adjacent-sibling", "~": "css-selector-general-sibling"} {
		if n := strings.Count(sel, c); n > 0 {
			u.add(slug)
			combinators += n
			sel = strings.ReplaceAll(sel, c, " ")
		}
	}
	compounds := strings.Fields(sel)
	if len(compounds)-1 > combinators {
		u.add("css-selector-descendant")
	}
	for _, c := range compounds {
		compound(u, c)
	}
}

// compound records the simple selectors of one compound (a.b#c[d]).
func compound(u uses, c string) {
	simple := 0
	if c[0] == '*' {
		u.add("css-selector-universal")
	} else if c[0] >= 'a' && c[0] <= 'z' {
		u.add("css-selector-type")
		simple++
	}
	c, _, _ = strings.Cut(c, ":") // pseudo-classes are counted above
	for _, kind := range []struct {
		mark byte
		slug string
	}{{'.', "css-selector-class"}, {'#', "css-selector-id"}, {'[', "css-selector-attribute"}} {
		if n := strings.Count(c, string(kind.mark)); n > 0 {
			u.add(kind.slug)
			simple += n
		}
	}
	if simple > 1 {
		u.add("css-selector-chaining")
	}
}

// blank empties what stands between open and close (attribute values,
// :not() arguments) so that its characters count as nothing.
func blank(s string, open, close byte) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == open:
			if depth == 0 {
				b.WriteByte(c)
			}
			depth++
		case c == close && depth > 0:
			depth--
			if depth == 0 {
				b.WriteByte(c)
			}
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}
