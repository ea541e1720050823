package mailparse

import (
	"html"
	"strings"
)

// maxLinks caps the links kept for one message.
const maxLinks = 1000

// ExtractLinks returns the http, https and mailto URLs found in the text
// body and in the href and src attributes of the HTML body, without
// duplicates, in the order first seen (text first). URLs in text lose
// trailing punctuation such as a sentence's full stop or an unbalanced
// closing parenthesis; attribute values are taken as written (entities
// decoded). Other schemes (javascript:, data:, cid:, ...) are dropped. At
// most 1000 links are returned.
func ExtractLinks(text, html string) []string {
	c := linkCollector{links: []string{}}
	c.scanText(text)
	c.scanHTMLAttributes(html)
	return c.links
}

type linkCollector struct {
	links []string
	seen  map[string]struct{}
}

func (c *linkCollector) full() bool { return len(c.links) >= maxLinks }

func (c *linkCollector) add(link string) {
	if c.seen == nil {
		c.seen = make(map[string]struct{})
	}
	if _, dup := c.seen[link]; dup {
		return
	}
	c.seen[link] = struct{}{}
	c.links = append(c.links, link)
}

// scanText finds URLs in free text by looking at every colon for a scheme
// in front of it.
func (c *linkCollector) scanText(s string) {
	for i := 0; i < len(s) && !c.full(); {
		colon := strings.IndexByte(s[i:], ':')
		if colon < 0 {
			return
		}
		colon += i
		start := schemeStart(s, colon)
		if start < 0 {
			i = colon + 1
			continue
		}
		end := colon + 1
		for end < len(s) && !endsTextURL(s[end]) {
			end++
		}
		if link := trimTrailingPunctuation(s[start:end]); hasLinkBody(link) {
			c.add(link)
		}
		i = end
	}
}

// schemeStart returns where the http, https or mailto scheme ending at the
// colon s[colon] starts, or -1 when there is none (or it is only the tail of
// a longer word, as in "xhttp:").
func schemeStart(s string, colon int) int {
	for _, scheme := range [...]string{"https", "http", "mailto"} {
		start := colon - len(scheme)
		if start < 0 || !strings.EqualFold(s[start:colon], scheme) {
			continue
		}
		if start > 0 && isWordByte(s[start-1]) {
			return -1
		}
		if scheme != "mailto" && !strings.HasPrefix(s[colon+1:], "//") {
			return -1
		}
		return start
	}
	return -1
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' ||
		b == '+' || b == '-' || b == '.' || b == '_'
}

// endsTextURL reports whether b cannot be part of a URL written in text.
func endsTextURL(b byte) bool {
	switch b {
	case '<', '>', '"', '\'', '`':
		return true
	}
	return b <= ' ' || b == 0x7f
}

// trimTrailingPunctuation drops punctuation that ends a sentence rather
// than the URL, and closing brackets that have no opening partner inside.
func trimTrailingPunctuation(link string) string {
	// Bracket balance is counted once: trimming must stay linear even for
	// a long run of closing brackets.
	var balance [3]int // (), [], {}: closing minus opening
	for i := 0; i < len(link); i++ {
		if kind, closing := bracket(link[i]); kind >= 0 {
			if closing {
				balance[kind]++
			} else {
				balance[kind]--
			}
		}
	}
	for len(link) > 0 {
		last := link[len(link)-1]
		switch kind, closing := bracket(last); {
		case strings.IndexByte(".,;:!?*", last) >= 0:
		case kind >= 0 && closing && balance[kind] > 0:
			balance[kind]--
		default:
			return link
		}
		link = link[:len(link)-1]
	}
	return link
}

// bracket classifies b as one of the bracket kinds 0 (), 1 [], 2 {}, or -1.
func bracket(b byte) (kind int, closing bool) {
	switch b {
	case '(':
		return 0, false
	case ')':
		return 0, true
	case '[':
		return 1, false
	case ']':
		return 1, true
	case '{':
		return 2, false
	case '}':
		return 2, true
	}
	return -1, false
}

// hasLinkBody reports whether a candidate has something after its scheme.
func hasLinkBody(link string) bool {
	_, rest, found := strings.Cut(link, ":")
	if !found {
		return false
	}
	rest = strings.TrimLeft(rest, "/")
	return rest != ""
}

// scanHTMLAttributes finds href and src attribute values that hold a link.
func (c *linkCollector) scanHTMLAttributes(s string) {
	for i := 0; i < len(s) && !c.full(); {
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return
		}
		eq += i
		i = eq + 1
		if !isLinkAttributeName(s, eq) {
			continue
		}
		value, end := attributeValue(s, eq+1)
		i = end
		if link := cleanAttributeLink(value); link != "" {
			c.add(link)
		}
	}
}

// isLinkAttributeName reports whether the name before the '=' at s[eq]
// (spaces allowed in between) is href or src.
func isLinkAttributeName(s string, eq int) bool {
	end := eq
	for end > 0 && isHTMLSpace(s[end-1]) {
		end--
	}
	for _, name := range [...]string{"href", "src"} {
		start := end - len(name)
		if start < 1 || !strings.EqualFold(s[start:end], name) {
			continue
		}
		switch before := s[start-1]; {
		case isHTMLSpace(before), before == '"', before == '\'', before == '/':
			return true
		}
	}
	return false
}

// attributeValue reads the value that starts at or after s[from] (spaces
// skipped), quoted or not; end is where scanning should resume.
func attributeValue(s string, from int) (value string, end int) {
	for from < len(s) && isHTMLSpace(s[from]) {
		from++
	}
	if from >= len(s) {
		return "", len(s)
	}
	if quote := s[from]; quote == '"' || quote == '\'' {
		closing := strings.IndexByte(s[from+1:], quote)
		if closing < 0 {
			return s[from+1:], len(s)
		}
		return s[from+1 : from+1+closing], from + 2 + closing
	}
	end = from
	for end < len(s) && !isHTMLSpace(s[end]) && s[end] != '>' {
		end++
	}
	return s[from:end], end
}

// cleanAttributeLink decodes entities, drops the whitespace browsers ignore
// in URLs, and keeps the value only when it is an http, https or mailto
// link.
func cleanAttributeLink(value string) string {
	if strings.IndexByte(value, '&') >= 0 {
		value = html.UnescapeString(value)
	}
	value = strings.TrimSpace(value)
	if strings.ContainsAny(value, "\t\n\r") {
		value = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(value)
	}
	for _, scheme := range [...]string{"https://", "http://", "mailto:"} {
		if len(value) > len(scheme) && strings.EqualFold(value[:len(scheme)], scheme) {
			return value
		}
	}
	return ""
}

func isHTMLSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f'
}
