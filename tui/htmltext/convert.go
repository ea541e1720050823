package htmltext

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/sync/errgroup"
)

// toMarkdown converts a pruned document to Markdown (see newConverter).
// The converter takes its time (some 45 µs a kilobyte of HTML), so the
// blocks of the document's outermost container of several blocks are
// cut into a part for each processor and the parts converted at once:
// the Markdown of blocks side by side is theirs joined by a blank line.
func toMarkdown(doc *html.Node) (string, error) {
	return convertInParts(doc, runtime.GOMAXPROCS(0), minPartNodes)
}

// convertInParts converts doc in at most n parts (see blockParts: its
// blocks are cut when they hold 2 × minNodes nodes or more).
func convertInParts(doc *html.Node, n, minNodes int) (string, error) {
	collapseDivs(doc)
	parts := blockParts(doc, n, minNodes)
	mds := make([]string, len(parts))
	var g errgroup.Group
	for i, part := range parts {
		g.Go(func() error {
			md, err := newConverter().ConvertNode(part)
			if err != nil {
				return fmt.Errorf("converting to Markdown: %w", err)
			}
			text := strings.Trim(string(md), "\n")
			if i > 0 {
				text = strings.TrimPrefix(text, edge)
			}
			if i < len(parts)-1 {
				text = strings.TrimSuffix(text, edge)
			}
			mds[i] = strings.Trim(text, "\n")
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return "", err
	}
	kept := mds[:0]
	for _, md := range mds {
		if md != "" {
			kept = append(kept, md)
		}
	}
	return strings.Join(kept, "\n\n"), nil
}

// edge is the paragraph that ends a part converted on its own and starts
// the next, so that the part's own ends are converted as they are in the
// whole (the converter trims the white space that ends a document, and
// no-break spaces are white space to it).
const edge = string(partEdge)

// newConverter is the converter to Markdown: CommonMark with
// strikethrough and tables (a table without header cells takes its first
// row as header).
func newConverter() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		strikethrough.NewStrikethroughPlugin(),
		table.NewTablePlugin(table.WithHeaderPromotion(true), table.WithSkipEmptyRows(true)),
	))
}

// collapseDivs empties into each div the div that is all it holds (the
// flattened rows and cells of layout tables): the converter writes the
// same Markdown for the two as for one, in less time.
func collapseDivs(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		collapseDivs(c)
	}
	only := n.FirstChild
	if n.DataAtom != atom.Div || only == nil || only != n.LastChild || only.Type != html.ElementNode || only.DataAtom != atom.Div {
		return
	}
	n.RemoveChild(only)
	for c := only.FirstChild; c != nil; c = only.FirstChild {
		only.RemoveChild(c)
		n.AppendChild(c)
	}
}

// partBlocks are the elements a pruned document's blocks are: what the
// converter writes apart from what stands beside it, between blank lines.
var partBlocks = map[atom.Atom]bool{
	atom.Div: true, atom.P: true, atom.Table: true, atom.Ul: true, atom.Ol: true,
	atom.Blockquote: true, atom.Pre: true, atom.Hr: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
}

// containers are the elements whose Markdown is their children's and
// nothing more: a part of their blocks converts alike without them.
var containers = map[atom.Atom]bool{atom.Html: true, atom.Body: true, atom.Div: true}

// blockParts cuts doc into at most n parts of about the same size, each
// a div holding blocks of the outermost container that holds several
// (reached through containers that hold one element and no text), cut
// only after a block that ends apart (see endsApart); a part but the
// last ends with an edge paragraph, a part but the first starts with one. It is doc itself when there is nothing to
// cut: fewer than two blocks, text or inline elements between them, or
// fewer than 2 × minNodes nodes in them. The parts are moved out of doc.
func blockParts(doc *html.Node, n, minNodes int) []*html.Node {
	container := outermostContainer(doc)
	if n <= 1 || container == nil {
		return []*html.Node{doc}
	}
	var blocks []*html.Node
	weights, total := []int{}, 0
	for c := container.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.ElementNode && partBlocks[c.DataAtom]:
			blocks = append(blocks, c)
			w := nodeCount(c)
			weights, total = append(weights, w), total+w
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
		case c.Type == html.CommentNode:
		default:
			return []*html.Node{doc}
		}
	}
	if len(blocks) < 2 || total < minNodes*2 {
		return []*html.Node{doc}
	}
	var parts []*html.Node
	part, size := newPart(), 0
	for i, b := range blocks {
		if size > 0 && size+weights[i]/2 > total*(len(parts)+1)/n && len(parts) < n-1 && endsApart(blocks[i-1]) {
			part.AppendChild(edgeParagraph())
			parts, part, size = append(parts, part), newPart(), 0
			part.AppendChild(edgeParagraph())
		}
		container.RemoveChild(b)
		part.AppendChild(b)
		size += weights[i]
	}
	return append(parts, part)
}

// minPartNodes is the fewest nodes a part is worth converting on its own.
const minPartNodes = 500

// outermostContainer is the first container under doc, through those
// that hold one element and nothing else but white space, that holds
// more than one child node, or nil.
func outermostContainer(doc *html.Node) *html.Node {
	n := doc
	for {
		var only *html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "", c.Type == html.CommentNode, c.Type == html.DoctypeNode:
			case c.Type == html.ElementNode && only == nil:
				only = c
			default:
				if n.Type == html.DocumentNode || !containers[n.DataAtom] {
					return nil
				}
				return n
			}
		}
		if only == nil || !containers[only.DataAtom] {
			return nil
		}
		n = only
	}
}

// endsApart says the Markdown of what follows block b is written as it
// is without b (and the blocks before it): b has text other than white
// space and no list. The converter writes a comment between two lists
// that nothing but elements without text separate, which it cannot do
// when the two are in different parts.
func endsApart(b *html.Node) bool {
	if b.DataAtom == atom.Ul || b.DataAtom == atom.Ol {
		return false
	}
	text := false
	for n := range b.Descendants() {
		switch {
		case n.Type == html.ElementNode && (n.DataAtom == atom.Ul || n.DataAtom == atom.Ol):
			return false
		case n.Type == html.TextNode && strings.TrimSpace(n.Data) != "":
			text = true
		}
	}
	return text
}

// edgeParagraph is a paragraph of the edge sentinel.
func edgeParagraph() *html.Node {
	p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
	p.AppendChild(&html.Node{Type: html.TextNode, Data: edge})
	return p
}

func newPart() *html.Node {
	return &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
}

// nodeCount is the number of nodes in the tree under n, n included.
func nodeCount(n *html.Node) int {
	count := 1
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		count += nodeCount(c)
	}
	return count
}
