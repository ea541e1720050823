package htmltext

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"sandview/client/linkcheck"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// Sentinels mark where a link's text starts and ends in the converters'
// output when hyperlinks are on, where an image's text starts and ends
// (Markdown only; it is shown dim), where an address in the text is
// (see tokenizeAddresses) and the edges of a part converted on its own
// (see blockParts). They are C0 controls: the sanitizer has removed
// every control from the mail's text, the converters and table writers
// give them no width and never treat them as space.
const (
	linkStart   = '\x02'
	linkEnd     = '\x03'
	dimStart    = '\x0e'
	dimEnd      = '\x0f'
	addressMark = '\x05'
	partEdge    = '\x01'
)

// linkSet numbers the links of a document as the pruner meets them.
type linkSet struct {
	hyperlinks bool
	// numbered are the targets of the references [1], [2] ... in order.
	numbered []string
	numbers  map[string]int
	// used says which numbers the text refers to: used[n-1] for [n]
	// (numbers past its end are not used).
	used []bool
	// targets are the hyperlink targets in document order, one per pair of
	// sentinels (hyperlinks only).
	targets []string
	// addresses are the web addresses written in the text, each replaced
	// by a token (see tokenizeAddresses); nesting is the number of lists
	// and quotes around each.
	addresses []address
	// deceptions are the links whose text names another host than their
	// target (linkcheck.Deceptive), by target.
	deceptions map[string]linkcheck.Deception
}

// newLinkSet starts numbering links after the given ones: listed[i] is
// numbered i+1 (the links the server found, so that every surface numbers
// a mail's links alike); links not in it are numbered after them.
func newLinkSet(hyperlinks bool, listed []string) *linkSet {
	s := &linkSet{hyperlinks: hyperlinks, numbers: map[string]int{}}
	for _, l := range listed {
		target := Target(l)
		s.numbered = append(s.numbered, target)
		if _, seen := s.numbers[target]; !seen {
			s.numbers[target] = len(s.numbered)
		}
	}
	return s
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
	text := strings.Join(strings.Fields(s.untokenized(textContent(a))), " ")
	if d, ok := s.deceptive(text, target); ok && a.Parent != nil {
		a.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: " (" + d.Warning() + ")"}, a.NextSibling)
	}
	if text != target && text != strings.TrimPrefix(target, "mailto:") {
		if text != "" && isButton(a) && !strings.ContainsRune(text, dimStart) {
			for a.FirstChild != nil {
				a.RemoveChild(a.FirstChild)
			}
			a.AppendChild(&html.Node{Type: html.TextNode, Data: "[\u00a0" + text + "\u00a0]"})
		}
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

// deceptive reports whether a link's text names another host than its
// target (linkcheck.Deceptive), and remembers it for Page.Deception.
func (s *linkSet) deceptive(text, target string) (linkcheck.Deception, bool) {
	d, ok := linkcheck.Deceptive(text, target)
	if ok {
		if s.deceptions == nil {
			s.deceptions = map[string]linkcheck.Deception{}
		}
		s.deceptions[target] = d
	}
	return d, ok
}

// number returns target's reference number, giving it the next one if it
// has none yet.
func (s *linkSet) number(target string) int {
	n, ok := s.numbers[target]
	if !ok {
		s.numbered = append(s.numbered, target)
		n = len(s.numbered)
		s.numbers[target] = n
	}
	if len(s.used) < n {
		s.used = append(s.used, make([]bool, n-len(s.used))...)
	}
	s.used[n-1] = true
	return n
}

// listed are the targets of the numbers the text refers to, in the order
// of their numbers, "" for the others (listed[n-1] is [n]); nil when the
// text refers to none.
func (s *linkSet) listed() []string {
	var out []string
	for i, used := range s.used {
		if used {
			if out == nil {
				out = make([]string, len(s.numbered))
			}
			out[i] = s.numbered[i]
		}
	}
	return out
}

// Target is what a link of the server's list (Options.Links) is among the
// page's Links: cleaned as an href is (linkTarget), or sanitized when it is
// not an address a link may have.
func Target(link string) string {
	if target, ok := linkTarget(link); ok {
		return target
	}
	return termtext.SanitizeLine(link)
}

// linkTarget cleans an href the way browsers do (ASCII tabs and newlines
// removed, spaces trimmed, a space inside written %20) and sanitizes it;
// ok is false for anything but an absolute http, https, mailto, tel or ftp
// address. So a target is one word, as a line of its own or the list of
// links lays it out.
func linkTarget(href string) (target string, ok bool) {
	if strings.ContainsAny(href, "\t\n\r") {
		href = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, href)
	}
	href = strings.ReplaceAll(termtext.SanitizeLine(strings.TrimSpace(href)), " ", "%20")
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
		return termtext.Sanitize(text) // drops the sentinels with the other controls
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
				b.WriteString(termtext.Sanitize(line))
				break
			}
			b.WriteString(termtext.Sanitize(line[:cut]))
			switch {
			case line[cut] == linkStart:
				open = ui.HyperlinkTarget(targets[next])
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

// isButton tells a link drawn as a button: its class says so, or its
// style (or that of the table cell it fills, in the "bulletproof" buttons
// of mail templates) gives it padding, a background or rounded corners.
func isButton(a *html.Node) bool {
	class, _ := attr(a, "class")
	for _, name := range strings.Fields(strings.ToLower(class)) {
		if strings.Contains(name, "button") || strings.Contains(name, "btn") || name == "cta" || strings.HasPrefix(name, "cta-") || strings.HasPrefix(name, "cta_") {
			return true
		}
	}
	if buttonStyle(a) != notButton {
		return true
	}
	n := a
	for n.Parent != nil && n.Parent.DataAtom != atom.Td && n.Parent.DataAtom != atom.Th {
		if !onlyElementChild(n) {
			return false
		}
		n = n.Parent
	}
	cell := n.Parent
	if cell == nil || !onlyElementChild(n) {
		return false
	}
	_, bg := attr(cell, "bgcolor")
	return bg || buttonStyle(cell) == buttonBackground
}

// buttonStyle tells what of a button a style attribute gives: a
// background or rounded corners, padding, or nothing.
func buttonStyle(n *html.Node) buttonLook {
	style, _ := attr(n, "style")
	look := notButton
	for decl := range strings.SplitSeq(style, ";") {
		name, value, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		var found buttonLook
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "background", "background-color", "border-radius":
			found = buttonBackground
		case "padding", "padding-top", "padding-left":
			found = buttonPadding
		default:
			continue
		}
		value = strings.ToLower(strings.TrimSpace(value))
		if value == "" || value == "none" || value == "transparent" || isZeroLength(value) {
			continue
		}
		if found == buttonBackground {
			return buttonBackground
		}
		look = found
	}
	return look
}

// buttonLook is what of a button a style gives.
type buttonLook int

const (
	notButton buttonLook = iota
	buttonPadding
	buttonBackground
)

// onlyElementChild reports whether n's parent holds no other element and
// no text but white space.
func onlyElementChild(n *html.Node) bool {
	if n.Parent == nil {
		return false
	}
	for c := n.Parent.FirstChild; c != nil; c = c.NextSibling {
		if c != n && (c.Type == html.ElementNode || c.Type == html.TextNode && strings.TrimSpace(c.Data) != "") {
			return false
		}
	}
	return true
}
