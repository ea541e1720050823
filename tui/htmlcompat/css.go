package htmlcompat

import (
	"regexp"
	"strings"
)

// maxNesting bounds how deep at-rules nest before the rest is ignored.
const maxNesting = 16

// stylesheet records the at-rules, selectors and declarations of a
// <style> block.
func stylesheet(u uses, css string) {
	rules(u, stripComments(u, css), 0)
}

// stripComments removes /* comments */, recording that there were some.
func stripComments(u uses, css string) string {
	css, had := StripCSSComments(css)
	if had {
		u.add("css-comments")
	}
	return css
}

// StripCSSComments removes the /* comments */ of a style sheet (an
// unclosed one runs to the end) and says whether there were any.
func StripCSSComments(css string) (stripped string, had bool) {
	var b strings.Builder
	for {
		i := strings.Index(css, "/*")
		if i < 0 {
			b.WriteString(css)
			return b.String(), had
		}
		had = true
		b.WriteString(css[:i])
		j := strings.Index(css[i+2:], "*/")
		if j < 0 {
			return b.String(), had
		}
		css = css[i+2+j+2:]
	}
}

// rules reads a list of rules: "prelude { body }" or "@rule ...;".
func rules(u uses, s string, depth int) {
	for depth < maxNesting {
		i := strings.IndexAny(s, "{;}")
		if i < 0 {
			return
		}
		prelude := strings.TrimSpace(s[:i])
		if s[i] != '{' {
			if strings.HasPrefix(prelude, "@") {
				atRule(u, prelude, "", depth)
			}
			s = s[i+1:]
			continue
		}
		body, rest := CSSBlock(s[i+1:])
		if strings.HasPrefix(prelude, "@") {
			atRule(u, prelude, body, depth)
		} else if prelude != "" {
			selectors(u, prelude)
			declarations(u, body)
		}
		s = rest
	}
}

// CSSBlock splits a style sheet that follows an opening brace at the
// brace that closes it: the block's body and the rest after it (an
// unclosed block runs to the end).
func CSSBlock(s string) (body, rest string) {
	depth := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[:i], s[i+1:]
			}
		}
	}
	return s, ""
}

// mediaFeatures are the @media features caniemail tests on their own.
var mediaFeatures = map[string]string{
	"prefers-color-scheme": "css-at-media-prefers-color-scheme", "hover": "css-at-media-hover",
	"orientation": "css-at-media-orientation", "device-pixel-ratio": "css-at-media-device-pixel-ratio",
	"prefers-reduced-motion": "css-at-media-prefers-reduced-motion",
}

func atRule(u uses, prelude, body string, depth int) {
	name, cond, _ := strings.Cut(prelude[1:]+" ", " ")
	name = strings.ToLower(strings.TrimSpace(vendorless(name)))
	switch name {
	case "media":
		u.add("css-at-media")
		cond = strings.ToLower(cond)
		for feat, slug := range mediaFeatures {
			if strings.Contains(cond, feat) {
				u.add(slug)
			}
		}
		rules(u, body, depth+1)
	case "supports":
		u.add("css-at-supports")
		rules(u, body, depth+1)
	case "font-face":
		u.add("css-at-font-face")
		declarations(u, body)
	case "import":
		u.add("css-at-import")
	case "keyframes":
		u.add("css-at-keyframes")
	}
}

// vendorless drops a vendor prefix (-webkit-, -moz-, -ms-, -o-).
func vendorless(s string) string {
	for _, p := range []string{"-webkit-", "-moz-", "-ms-", "-o-"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest
		}
	}
	return s
}

// propertyAliases maps properties to the feature that covers them, when
// it is not "css-" + the property itself.
var propertyAliases = map[string]string{
	"top": "css-left-right-top-bottom", "left": "css-left-right-top-bottom",
	"right": "css-left-right-top-bottom", "bottom": "css-left-right-top-bottom",
	"row-gap": "css-gap", "column-gap": "css-gap",
	"grid-template-columns": "css-grid-template", "grid-template-rows": "css-grid-template",
	"grid-template-areas": "css-grid-template",
	"column-width":        "css-column-layout-properties", "column-rule": "css-column-layout-properties",
	"column-span": "css-column-layout-properties", "column-fill": "css-column-layout-properties",
	"columns":    "css-column-layout-properties",
	"margin-top": "css-margin", "margin-right": "css-margin", "margin-bottom": "css-margin", "margin-left": "css-margin",
	"padding-top": "css-padding", "padding-right": "css-padding", "padding-bottom": "css-padding",
	"padding-left":       "css-padding",
	"margin-block-start": "css-margin-block-start-end", "margin-block-end": "css-margin-block-start-end",
	"margin-inline-start": "css-margin-inline-start-end", "margin-inline-end": "css-margin-inline-start-end",
	"margin-inline": "css-margin-inline-block", "margin-block": "css-margin-inline-block",
	"padding-block-start": "css-padding-block-start-end", "padding-block-end": "css-padding-block-start-end",
	"padding-inline-start": "css-padding-inline-start-end", "padding-inline-end": "css-padding-inline-start-end",
	"padding-inline": "css-padding-inline-block", "padding-block": "css-padding-inline-block",
	"border-top": "css-border", "border-right": "css-border", "border-bottom": "css-border",
	"border-left": "css-border", "border-width": "css-border", "border-style": "css-border",
	"border-color":           "css-border",
	"border-top-left-radius": "css-border-radius", "border-top-right-radius": "css-border-radius",
	"border-bottom-left-radius": "css-border-radius", "border-bottom-right-radius": "css-border-radius",
	"border-inline": "css-border-inline-block", "border-block": "css-border-inline-block",
	"block-size": "css-block-inline-size", "scroll-snap-type": "css-scroll-snap",
	"scroll-snap-align": "css-scroll-snap", "text-decoration-skip": "css-text-decoration-skip-ink",
}

// valueFunctions maps a CSS function in a value to its feature.
var valueFunctions = map[string]string{
	"linear-gradient(": "css-linear-gradient", "repeating-linear-gradient(": "css-linear-gradient",
	"radial-gradient(": "css-radial-gradient", "repeating-radial-gradient(": "css-radial-gradient",
	"conic-gradient(": "css-conic-gradient", "calc(": "css-unit-calc", "clamp(": "css-function-clamp",
	"min(": "css-function-min", "max(": "css-function-max", "light-dark(": "css-function-light-dark",
	"var(": "css-variables", "rgb(": "css-rgb", "rgba(": "css-rgba", "oklch(": "css-modern-color",
	"oklab(": "css-modern-color", "lab(": "css-modern-color", "lch(": "css-modern-color",
	"hwb(": "css-modern-color", "color(": "css-modern-color", "url(data:": "image-base64",
}

// unitPattern is a number with a unit, one token of a value.
var unitPattern = regexp.MustCompile(`^[-+]?(?:\d*\.)?\d+(px|rem|em|%|vh|vw|vmin|vmax|pt|pc|ch|ex|cm|mm|in)$`)

// declarations records "property: value; ..." (a style attribute or a
// rule's body).
func declarations(u uses, s string) {
	for _, decl := range splitOutside(s, ';') {
		prop, value, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		prop = strings.ToLower(strings.TrimSpace(prop))
		value = strings.ToLower(strings.TrimSpace(value))
		if strings.HasPrefix(prop, "--") {
			u.add("css-variables")
		} else if prop != "" {
			property(u, vendorless(prop), value)
		}
		if v, ok := strings.CutSuffix(value, "important"); ok && strings.HasSuffix(strings.TrimSpace(v), "!") {
			u.add("css-important")
		}
		cssValue(u, value)
	}
}

// property records a property by name, with display's values of note.
func property(u uses, prop, value string) {
	if slug, ok := propertyAliases[prop]; ok {
		u.add(slug)
	} else {
		u.add("css-" + prop) // features the data lacks are dropped by the report
	}
	switch {
	case prop == "display" && strings.Contains(value, "flex"):
		u.add("css-display-flex")
	case prop == "display" && strings.Contains(value, "grid"):
		u.add("css-display-grid")
	case prop == "display" && strings.HasPrefix(value, "none"):
		u.add("css-display-none")
	case prop == "font-family" && strings.Contains(value, "system-ui"):
		u.add("css-sytem-ui") // sic: caniemail's slug
	}
}

// cssValue records the functions and units a value uses.
func cssValue(u uses, value string) {
	for fn, slug := range valueFunctions {
		if strings.Contains(value, fn) {
			u.add(slug)
		}
	}
	for _, tok := range strings.FieldsFunc(value, func(r rune) bool { return strings.ContainsRune(" \t\n,()/!", r) }) {
		switch m := unitPattern.FindStringSubmatch(tok); {
		case tok == "initial":
			u.add("css-unit-initial")
		case m == nil:
		case m[1] == "%":
			u.add("css-unit-percent")
		default:
			u.add("css-unit-" + m[1])
		}
	}
}

// splitOutside splits s at sep where it is outside parentheses and
// quotes (a data URL's ";base64" is no new declaration).
func splitOutside(s string, sep byte) []string {
	var parts []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case c == sep && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}
