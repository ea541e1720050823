package htmltext

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"sandview/tui/htmlcompat"
)

// visibility is what an element's CSS does to its content.
type visibility struct {
	// hidden: the element and everything in it is not shown (display:none,
	// visibility:hidden, opacity:0, mso-hide:all, a zero width, height or
	// max-height).
	hidden bool
	// fontSize is zeroFontSize or positiveFontSize when the element sets a font size of
	// zero or of more than zero, noFontSize when it sets none. A zero font
	// size hides text down to the first descendant that sets its own size
	// (responsive mail templates set it on column wrappers, so it cannot hide
	// the whole subtree).
	fontSize fontSize
}

type fontSize int

const (
	noFontSize fontSize = iota
	zeroFontSize
	positiveFontSize
)

// hidingRules holds the class and id selectors of a mail's style sheets
// whose declarations hide an element or zero its font size, such as the
// `.preheader { display: none }` of common transactional templates. Only
// top-level rules with a simple selector (`.name`, `tag.name`, `#id`,
// `tag#id`) are kept: rules inside @media blocks apply to some screens only.
type hidingRules struct {
	classes map[string][]styleRule
	ids     map[string][]styleRule
}

type styleRule struct {
	tag string // "" matches any element
	vis visibility
}

// collectHidingRules reads every <style> element under root.
func collectHidingRules(root *html.Node) hidingRules {
	rules := hidingRules{classes: map[string][]styleRule{}, ids: map[string][]styleRule{}}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "style" && n.Namespace == "" {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					rules.addSheet(c.Data)
				}
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return rules
}

// addSheet adds the hiding rules of one style sheet.
func (r hidingRules) addSheet(sheet string) {
	sheet, _ = htmlcompat.StripCSSComments(sheet)
	for sheet != "" {
		open := strings.IndexAny(sheet, "{;")
		if open < 0 {
			return
		}
		prelude := strings.TrimSpace(sheet[:open])
		if sheet[open] == ';' { // @import, @charset
			sheet = sheet[open+1:]
			continue
		}
		var body string
		body, sheet = htmlcompat.CSSBlock(sheet[open+1:])
		if strings.HasPrefix(prelude, "@") {
			continue
		}
		vis := declarations(body)
		if !vis.hidden && vis.fontSize == noFontSize {
			continue
		}
		for _, selector := range strings.Split(prelude, ",") {
			r.add(strings.TrimSpace(selector), vis)
		}
	}
}

// add records one selector if it is simple.
func (r hidingRules) add(selector string, vis visibility) {
	cut := strings.IndexAny(selector, ".#")
	if cut < 0 || !isName(selector[:cut], true) || !isName(selector[cut+1:], false) {
		return
	}
	rule := styleRule{tag: strings.ToLower(selector[:cut]), vis: vis}
	name := selector[cut+1:]
	if selector[cut] == '.' {
		r.classes[name] = append(r.classes[name], rule)
	} else {
		r.ids[name] = append(r.ids[name], rule)
	}
}

// isName reports whether s is a tag name (letters and digits, maybe
// empty) or a class or id name (non-empty; letters, digits, '-' and '_').
func isName(s string, tag bool) bool {
	if s == "" {
		return tag
	}
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || !tag && (c == '-' || c == '_')
		if !ok {
			return false
		}
	}
	return true
}

// elementVisibility combines the style sheet rules that match n with its
// style attribute (which wins) and its hidden, width and height attributes.
func (r hidingRules) elementVisibility(n *html.Node) visibility {
	var vis visibility
	apply := func(v visibility) {
		vis.hidden = vis.hidden || v.hidden
		if v.fontSize != noFontSize {
			vis.fontSize = v.fontSize
		}
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "class":
			if len(r.classes) == 0 {
				continue
			}
			for class := range strings.FieldsSeq(a.Val) {
				for _, rule := range r.classes[class] {
					if rule.tag == "" || rule.tag == n.Data {
						apply(rule.vis)
					}
				}
			}
		case "id":
			for _, rule := range r.ids[a.Val] {
				if rule.tag == "" || rule.tag == n.Data {
					apply(rule.vis)
				}
			}
		case "hidden":
			vis.hidden = true
		case "width", "height":
			vis.hidden = vis.hidden || isZeroLength(a.Val)
		}
	}
	if style, ok := attr(n, "style"); ok {
		apply(declarations(style))
	}
	return vis
}

// declarations evaluates a declaration block such as a style attribute.
func declarations(block string) visibility {
	var vis visibility
	for decl := range strings.SplitSeq(block, ";") {
		name, value, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "display":
			vis.hidden = vis.hidden || cssValue(value) == "none"
		case "visibility":
			value = cssValue(value)
			vis.hidden = vis.hidden || value == "hidden" || value == "collapse"
		case "opacity":
			vis.hidden = vis.hidden || isZeroLength(cssValue(value))
		case "mso-hide": // hidden from Outlook, which ignores display:none: a preheader
			vis.hidden = vis.hidden || cssValue(value) == "all"
		case "width", "height", "max-width", "max-height":
			vis.hidden = vis.hidden || isZeroLength(cssValue(value))
		case "font-size":
			vis.fontSize = positiveFontSize
			if isZeroLength(cssValue(value)) {
				vis.fontSize = zeroFontSize
			}
		}
	}
	return vis
}

// cssValue is a declaration's value in lower case, without "!important".
func cssValue(value string) string {
	value = strings.ToLower(strings.TrimSpace(value))
	return strings.TrimSpace(strings.TrimSuffix(value, "!important"))
}

// isZeroLength reports a CSS length or number that is zero: "0", "0px",
// "0.0em", "0%".
func isZeroLength(value string) bool {
	value = strings.TrimSpace(value)
	number := strings.TrimRightFunc(value, func(r rune) bool { return r >= 'a' && r <= 'z' || r == '%' })
	if number == "" {
		return false
	}
	f, err := strconv.ParseFloat(number, 64)
	return err == nil && f == 0
}

// attr returns the value of n's attribute key.
func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
