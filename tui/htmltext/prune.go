package htmltext

import (
	"strconv"
	"strings"

	"sandview/model/termtext"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pruner prepares a parsed document for the Markdown converter, or for
// html2text when the document is shown as plain text: it removes what a
// mail reader does not show, turns images into their alt text, numbers
// links, marks buttons, flattens layout tables and sanitizes every text
// node, so that the converters measure the text as it will be shown.
type pruner struct {
	rules hidingRules
	links *linkSet
	// markdown prepares for the Markdown converter: images and addresses in
	// the text get sentinels, and what html2text needs rewritten (ordered
	// lists, headings, preformatted text) is left as it is.
	markdown bool
	// nesting is the number of lists and quotes around the node being
	// pruned; deepest is the most seen.
	nesting, deepest int
}

// dropped are the elements whose content is never shown as text.
var dropped = map[atom.Atom]bool{
	atom.Head: true, atom.Style: true, atom.Script: true, atom.Template: true,
	atom.Title: true, atom.Meta: true, atom.Link: true, atom.Input: true,
	atom.Select: true, atom.Textarea: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Canvas: true, atom.Map: true, atom.Area: true,
}

// blocks are block-level elements that html2text renders inline; they
// become divs so that they start on their own line.
var blocks = map[atom.Atom]bool{
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true,
	atom.Main: true, atom.Nav: true, atom.Aside: true, atom.Address: true,
	atom.Figure: true, atom.Figcaption: true, atom.Center: true, atom.Dl: true,
	atom.Dt: true, atom.Dd: true, atom.Details: true, atom.Summary: true,
	atom.Fieldset: true, atom.Form: true, atom.Legend: true, atom.Caption: true,
	atom.Hgroup: true, atom.Picture: true, atom.Video: true, atom.Audio: true,
}

// prune walks n's children; zeroFont says an ancestor set a zero font size
// that no nearer ancestor overrode.
func (p *pruner) prune(n *html.Node, zeroFont bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		p.pruneNode(c, zeroFont)
		c = next
	}
}

// pruneNode handles one node: it may remove or replace it.
func (p *pruner) pruneNode(n *html.Node, zeroFont bool) {
	switch n.Type {
	case html.TextNode:
		if zeroFont {
			n.Parent.RemoveChild(n)
			return
		}
		n.Data = termtext.Sanitize(n.Data)
		if p.markdown {
			n.Data = p.links.tokenizeAddresses(n.Data, p.nesting)
		}
		return
	case html.ElementNode:
	case html.DocumentNode:
		p.prune(n, zeroFont)
		return
	default: // comments, doctypes
		n.Parent.RemoveChild(n)
		return
	}
	vis := p.rules.elementVisibility(n)
	if n.Namespace != "" || dropped[n.DataAtom] || vis.hidden {
		n.Parent.RemoveChild(n)
		return
	}
	if vis.fontSize != noFontSize {
		zeroFont = vis.fontSize == zeroFontSize
	}
	if p.markdown {
		p.pruneForMarkdown(n, zeroFont)
		return
	}
	switch n.DataAtom {
	case atom.Img:
		replaceWithText(n, imageText(n))
		return
	case atom.Ol:
		numberItems(n)
	case atom.Pre:
		keepIndentation(n)
		wrapInDiv(n)
	case atom.Hr:
		renameElement(n, atom.Div)
		n.AppendChild(&html.Node{Type: html.TextNode, Data: "────────"})
	default:
		if blocks[n.DataAtom] {
			renameElement(n, atom.Div)
		}
	}
	p.prune(n, zeroFont)
	switch n.DataAtom {
	case atom.A:
		p.links.mark(n)
	case atom.Table:
		if isLayoutTable(n) {
			flattenTable(n)
		} else {
			squareTable(n)
		}
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		underline(n)
	}
}

// pruneForMarkdown handles an element for the Markdown converter.
func (p *pruner) pruneForMarkdown(n *html.Node, zeroFont bool) {
	switch n.DataAtom {
	case atom.Img:
		if text := imageText(n); text != "" {
			replaceWithText(n, string(dimStart)+text+string(dimEnd))
		} else {
			replaceWithText(n, "")
		}
		return
	case atom.Ul, atom.Ol, atom.Blockquote:
		p.nesting++
		p.deepest = max(p.deepest, p.nesting)
		defer func() { p.nesting-- }()
	}
	p.prune(n, zeroFont)
	switch n.DataAtom {
	case atom.A:
		p.links.mark(n)
		renameElement(n, atom.Span) // the link is in its text, glamour would add its own
	case atom.Table:
		if isLayoutTable(n) {
			flattenTable(n)
		} else {
			p.links.inTable(n, squareTable(n))
		}
	}
}

// underline writes a heading as a paragraph between two rules of '*' (h1)
// or '-' (h2), or above one rule of '-' (h3 to h6), each as wide as the
// heading's widest line. (html2text's own rules count characters, not
// cells, and would count the hyperlink sentinels.)
func underline(h *html.Node) {
	width := 0
	for _, line := range strings.Split(textContent(h), "\n") {
		width = max(width, termtext.Width(strings.Join(strings.Fields(line), " ")))
	}
	if width == 0 {
		renameElement(h, atom.P)
		return
	}
	rule := func(c string) *html.Node {
		div := &html.Node{Type: html.ElementNode, DataAtom: atom.Div, Data: "div"}
		div.AppendChild(&html.Node{Type: html.TextNode, Data: strings.Repeat(c, width)})
		return div
	}
	switch h.DataAtom {
	case atom.H1:
		h.InsertBefore(rule("*"), h.FirstChild)
		h.AppendChild(rule("*"))
	case atom.H2:
		h.InsertBefore(rule("-"), h.FirstChild)
		h.AppendChild(rule("-"))
	default:
		h.AppendChild(rule("-"))
	}
	renameElement(h, atom.P)
}

// imageText is what an image shows: "[image: alt]", or "[image]" when it
// has no alt text; nothing for an image of a pixel or two (tracking pixels
// and spacers).
func imageText(img *html.Node) string {
	for _, key := range []string{"width", "height"} {
		if v, ok := attr(img, key); ok {
			if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), "px")); err == nil && n <= 2 {
				return ""
			}
		}
	}
	alt, _ := attr(img, "alt")
	alt = strings.Join(strings.Fields(termtext.SanitizeLine(alt)), " ")
	if alt == "" {
		return "[image]"
	}
	return "[image: " + alt + "]"
}

// replaceWithText puts a text node in n's place (or just removes n).
func replaceWithText(n *html.Node, text string) {
	if text != "" {
		n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: text}, n)
	}
	n.Parent.RemoveChild(n)
}

func renameElement(n *html.Node, a atom.Atom) {
	n.DataAtom, n.Data = a, a.String()
}

// isLayoutTable tells a table used for page layout (most of a newsletter)
// from one that holds data: a data table has header cells or at least two
// rows of two or more cells, and no other tables or block content inside;
// a table that says role="presentation" is for layout.
func isLayoutTable(table *html.Node) bool {
	if role, _ := attr(table, "role"); role == "presentation" || role == "none" {
		return true
	}
	rows, header, layout := 0, false, false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && !layout; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Table, atom.Div, atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
				atom.Ul, atom.Ol, atom.Blockquote, atom.Pre, atom.Center:
				layout = true
				return
			case atom.Tr:
				if countCells(c) >= 2 {
					rows++
				}
			case atom.Th:
				header = true
			}
			walk(c)
		}
	}
	walk(table)
	return layout || !(header || rows >= 2)
}

func countCells(row *html.Node) int {
	n := 0
	for c := row.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
			n++
		}
	}
	return n
}

// flattenTable turns a layout table into nested divs: each cell becomes a
// block of its own.
func flattenTable(table *html.Node) {
	renameElement(table, atom.Div)
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.DataAtom {
			case atom.Table:
				continue // flattened, or not, when the pruner reaches it
			case atom.Thead, atom.Tbody, atom.Tfoot, atom.Tr, atom.Td, atom.Th, atom.Caption, atom.Colgroup, atom.Col:
				renameElement(c, atom.Div)
			}
			walk(c)
		}
	}
	walk(table)
}

// squareTable makes a data table rectangular, as html2text's table writer
// needs: every row gets as many cells as the widest, the first row is the
// header if it has a th (and then only th), th elsewhere become td (html2text
// would move them to the header), and footer rows become body rows (it
// would put all of them into one row). It returns the number of columns.
func squareTable(table *html.Node) int {
	var rows []*html.Node
	for c := table.FirstChild; c != nil; c = c.NextSibling {
		switch c.DataAtom {
		case atom.Tr:
			rows = append(rows, c)
		case atom.Thead, atom.Tbody, atom.Tfoot:
			if c.DataAtom == atom.Tfoot {
				renameElement(c, atom.Tbody)
			}
			for r := c.FirstChild; r != nil; r = r.NextSibling {
				if r.DataAtom == atom.Tr {
					rows = append(rows, r)
				}
			}
		}
	}
	columns := 0
	for _, row := range rows {
		columns = max(columns, countCells(row))
	}
	for i, row := range rows {
		cell := atom.Td
		if i == 0 && hasChild(row, atom.Th) {
			cell = atom.Th
		}
		for c := row.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
				renameElement(c, cell)
			}
		}
		for range columns - countCells(row) {
			row.AppendChild(&html.Node{Type: html.ElementNode, DataAtom: cell, Data: cell.String()})
		}
	}
	return columns
}

func hasChild(n *html.Node, a atom.Atom) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == a {
			return true
		}
	}
	return false
}

// keepIndentation turns the spaces that start the lines of preformatted
// text into no-break spaces, which html2text keeps.
func keepIndentation(pre *html.Node) {
	atLineStart := true
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.TextNode {
				walk(c)
				continue
			}
			var b strings.Builder
			for _, r := range c.Data {
				switch {
				case r == ' ' && atLineStart:
					b.WriteRune('\u00a0')
				case r == '\n':
					atLineStart = true
					b.WriteRune(r)
				default:
					atLineStart = false
					b.WriteRune(r)
				}
			}
			c.Data = b.String()
		}
	}
	walk(pre)
}

// wrapInDiv puts n in a div of its own, so that it starts on a new line.
func wrapInDiv(n *html.Node) {
	div := &html.Node{Type: html.ElementNode, DataAtom: atom.Div, Data: "div"}
	n.Parent.InsertBefore(div, n)
	n.Parent.RemoveChild(n)
	div.AppendChild(n)
}

// numberItems numbers the items of an ordered list ("1. ", "2. " ...),
// which html2text would bullet like an unordered one, and makes the items
// divs in a ul.
func numberItems(list *html.Node) {
	number := 1
	if start, ok := attr(list, "start"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(start)); err == nil {
			number = n
		}
	}
	for c := list.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom != atom.Li {
			continue
		}
		renameElement(c, atom.Div)
		c.InsertBefore(&html.Node{Type: html.TextNode, Data: strconv.Itoa(number) + "."}, c.FirstChild)
		number++
	}
	renameElement(list, atom.Ul) // a paragraph of its own, as html2text writes lists
}
