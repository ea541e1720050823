package htmltext

import (
	"fmt"

	"sandview/model/termtext"

	"github.com/jaytaylor/html2text"
)

// plainResult is a body shown as plain text, with its links.
type plainResult struct {
	Result
	links *linkSet
}

// renderPlain converts a body to plain text with html2text, as the reader
// did before it laid mail out with glamour: headings underlined, emphasis
// as *stars*, data tables drawn with ASCII rules, nothing wrapped. Links
// are numbered as in the laid out page.
func renderPlain(body string, hyperlinks bool, listed []string) plainResult {
	links := newLinkSet(hyperlinks, listed)
	doc, err := parse(body)
	if err != nil {
		return plainResult{Result{Text: withLinkList(tidyLines(termtext.Sanitize(textOnly(body, links))), links), Links: links.numbered, Problem: fmt.Sprintf("the HTML could not be laid out (%v); showing its text", err)}, links}
	}
	p := pruner{rules: collectHidingRules(doc), links: links}
	p.prune(doc, false)

	tables := html2text.NewPrettyTablesOptions()
	tables.AutoFormatHeader = false // keep the header cells as written
	text, err := html2text.FromHTMLNode(doc, html2text.Options{PrettyTables: true, PrettyTablesOptions: tables, OmitLinks: true})
	if err != nil {
		return plainResult{Result{Text: withLinkList(tidyLines(termtext.Sanitize(textOnly(body, links))), links), Links: links.numbered, Problem: fmt.Sprintf("the HTML could not be converted (%v); showing its text", err)}, links}
	}
	if hyperlinks {
		text = hyperlinked(text, links.targets)
	} else {
		text = termtext.Sanitize(text)
	}
	text = tidyLines(text)
	if listed := links.listed(); listed != nil {
		text += "\n\nLinks:\n" + referenceListPlain(listed, hyperlinks)
	}
	return plainResult{Result{Text: text, Links: links.numbered}, links}
}
