package htmltext

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// address is a web address written in the text of a mail.
type address struct {
	text    string
	nesting int
	// columns is the number of columns of the data table the address is
	// in, 0 outside tables.
	columns int
}

// addressPattern finds the web addresses written in a text.
var addressPattern = regexp.MustCompile(`(?i)\b(?:https?://|www\.)[^\s<>"]+`)

// tokenizeAddresses replaces each web address in text with a token, the
// address mark, its number in letters and the mark again: the Markdown
// converter and glamour would break an address at its hyphens and slashes,
// but keep a word of letters whole (see expandTokens).
func (s *linkSet) tokenizeAddresses(text string, nesting int) string {
	if !strings.Contains(text, "://") && !containsWWW(text) {
		return text
	}
	return addressPattern.ReplaceAllStringFunc(text, func(found string) string {
		found, tail := trimAddress(found)
		s.addresses = append(s.addresses, address{text: found, nesting: nesting})
		return token(len(s.addresses)-1, 0) + tail
	})
}

// containsWWW reports whether text holds "www." in any case (only 'W'
// folds to 'w').
func containsWWW(text string) bool {
	for i := 0; i+4 <= len(text); i++ {
		if text[i]|0x20 == 'w' && strings.EqualFold(text[i:i+4], "www.") {
			return true
		}
	}
	return false
}

// trimAddress leaves the punctuation that ends a sentence, and a closing
// bracket that has no opening one in the address, out of it.
func trimAddress(found string) (addr, tail string) {
	addr = strings.TrimRight(found, ".,;:!?'")
	for _, pair := range []string{"()", "[]"} {
		if strings.HasSuffix(addr, pair[1:]) && strings.Count(addr, pair[:1]) < strings.Count(addr, pair[1:]) {
			addr = addr[:len(addr)-1]
		}
	}
	return addr, found[len(addr):]
}

// token is the token of address i, padded with 'x' to width cells.
func token(i, width int) string {
	id := ""
	for {
		id = string(rune('a'+i%10)) + id
		if i /= 10; i == 0 {
			break
		}
	}
	return string(addressMark) + id + strings.Repeat("x", max(width-len(id), 0)) + string(addressMark)
}

// untokenized puts the addresses back in place of their tokens.
func (s *linkSet) untokenized(text string) string {
	if !strings.ContainsRune(text, addressMark) {
		return text
	}
	var b strings.Builder
	for {
		start := strings.IndexRune(text, addressMark)
		end := strings.IndexRune(text[start+1:], addressMark)
		if start < 0 || end < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:start])
		if i, ok := tokenNumber(text[start+1 : start+1+end]); ok && i < len(s.addresses) {
			b.WriteString(s.addresses[i].text)
		}
		text = text[start+1+end+1:]
	}
}

// inTable records that the addresses in the text under table are in a
// data table of columns columns.
func (s *linkSet) inTable(table *html.Node, columns int) {
	for _, i := range s.tokensIn(textContent(table)) {
		s.addresses[i].columns = columns
	}
}

// tokensIn are the numbers of the address tokens in text.
func (s *linkSet) tokensIn(text string) []int {
	var found []int
	for {
		start := strings.IndexRune(text, addressMark)
		if start < 0 {
			return found
		}
		text = text[start+1:]
		end := strings.IndexRune(text, addressMark)
		if end < 0 {
			return found
		}
		if i, ok := tokenNumber(text[:end]); ok && i < len(s.addresses) {
			found = append(found, i)
		}
		text = text[end+1:]
	}
}

// tokenNumber reads the number of a token's letters (the padding after
// them is ignored).
func tokenNumber(letters string) (int, bool) {
	n, digits := 0, 0
	for _, c := range letters {
		if c < 'a' || c > 'j' {
			break
		}
		n = n*10 + int(c-'a')
		digits++
	}
	return n, digits > 0
}
