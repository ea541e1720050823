package htmltext

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"sandview/model"
)

// Sentinels mark where a link's text starts and ends in html2text's output
// when hyperlinks are on. They are C0 controls: the sanitizer has removed
// every control from the mail's text, html2text and its table writer give
// them no width and never treat them as space.
const (
	linkStart = '\x02'
	linkEnd   = '\x03'
)

// linkSet numbers the links of a document as the pruner meets them.
type linkSet struct {
	hyperlinks bool
	// numbered are the targets of the references [1], [2] ... in order.
	numbered []string
	numbers  map[string]int
	// targets are the hyperlink targets in document order, one per pair of
	// sentinels (hyperlinks only).
	targets []string
}

func newLinkSet(hyperlinks bool) *linkSet {
	return &linkSet{hyperlinks: hyperlinks, numbers: map[string]int{}}
}

// mark handles an <a> element whose children are already pruned: a link to
// an http(s), mailto, tel or ftp address gets its reference number after its
// text ("text [3]"), unless the text is the address itself, and sentinels
// around its text when hyperlinks are on. The href is removed so that
// html2text does not print it again.
func (s *linkSet) mark(a *html.Node) {
	href, _ := attr(a, "href")
	removeAttr(a, "href")
	target, ok := linkTarget(href)
	if !ok {
		return
	}
	text := strings.Join(strings.Fields(textContent(a)), " ")
	if text != target && text != strings.TrimPrefix(target, "mailto:") {
		a.AppendChild(&html.Node{Type: html.TextNode, Data: " [" + strconv.Itoa(s.number(target)) + "]"})
	}
	if !s.hyperlinks {
		return
	}
	first, last := firstText(a), lastText(a)
	if first == nil {
		return
	}
	trimmed := strings.TrimLeft(first.Data, " \t\r\n\f")
	first.Data = first.Data[:len(first.Data)-len(trimmed)] + string(linkStart) + trimmed
	trimmed = strings.TrimRight(last.Data, " \t\r\n\f")
	last.Data = trimmed + string(linkEnd) + last.Data[len(trimmed):]
	s.targets = append(s.targets, target)
}

// number returns target's reference number, giving it the next one if it
// has none yet.
func (s *linkSet) number(target string) int {
	if n, ok := s.numbers[target]; ok {
		return n
	}
	s.numbered = append(s.numbered, target)
	s.numbers[target] = len(s.numbered)
	return len(s.numbered)
}

// linkTarget cleans an href the way browsers do (ASCII tabs and newlines
// removed, spaces trimmed) and sanitizes it; ok is false for anything but
// an absolute http, https, mailto, tel or ftp address.
func linkTarget(href string) (target string, ok bool) {
	href = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, href)
	href = model.SanitizeLine(strings.TrimSpace(href))
	u, err := url.Parse(href)
	if err != nil {
		return "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ftp":
		return href, u.Host != ""
	case "mailto", "tel":
		return href, u.Opaque != "" || u.Path != ""
	}
	return "", false
}

func removeAttr(n *html.Node, key string) {
	kept := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Key != key {
			kept = append(kept, a)
		}
	}
	n.Attr = kept
}

// textContent is the text under n, with a newline for each <br>.
func textContent(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.DataAtom == atom.Br:
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// firstText and lastText find the first and last text node under n that
// holds more than white space.
func firstText(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return c
		}
		if t := firstText(c); t != nil {
			return t
		}
	}
	return nil
}

func lastText(n *html.Node) *html.Node {
	for c := n.LastChild; c != nil; c = c.PrevSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return c
		}
		if t := lastText(c); t != nil {
			return t
		}
	}
	return nil
}

// hyperlinked turns the sentinels of text into OSC 8 hyperlinks to targets
// (the n-th start sentinel opens targets[n]) and sanitizes the text between
// them. A link is closed at the end of each line and opened again on the
// next, so that no line leaves one open. When the sentinels do not pair up
// with targets, they are dropped and no hyperlink is made.
func hyperlinked(text string, targets []string) string {
	if strings.Count(text, string(linkStart)) != len(targets) || strings.Count(text, string(linkEnd)) != len(targets) {
		return model.SanitizeText(text) // drops the sentinels with the other controls
	}
	lines := strings.Split(text, "\n")
	next, open := 0, "" // open is the URI of the link being written, if any
	for i, line := range lines {
		var b strings.Builder
		if open != "" {
			b.WriteString(ansi.SetHyperlink(open))
		}
		for line != "" {
			cut := strings.IndexAny(line, string(linkStart)+string(linkEnd))
			if cut < 0 {
				b.WriteString(model.SanitizeText(line))
				break
			}
			b.WriteString(model.SanitizeText(line[:cut]))
			switch {
			case line[cut] == linkStart:
				open = osc8URI(targets[next])
				next++
				b.WriteString(ansi.SetHyperlink(open))
			case line[cut] == linkEnd && open != "":
				open = ""
				b.WriteString(ansi.ResetHyperlink())
			}
			line = line[cut+1:]
		}
		if open != "" {
			b.WriteString(ansi.ResetHyperlink())
		}
		lines[i] = b.String()
	}
	return strings.Join(lines, "\n")
}

// osc8URI percent-encodes every byte of target outside printable ASCII, as
// the OSC 8 convention asks; the result cannot end the escape sequence early.
func osc8URI(target string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
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

// hyperlink writes text as an OSC 8 hyperlink to target.
func hyperlink(target, text string) string {
	return ansi.SetHyperlink(osc8URI(target)) + text + ansi.ResetHyperlink()
}
