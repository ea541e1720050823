package htmltext

import (
	"fmt"
	"strings"
	"sync"

	"charm.land/glamour/v2/ansi"
	"golang.org/x/net/html"

	"sandview/client/linkcheck"
	"sandview/model/termtext"
	"sandview/theme"
)

// Options changes how a body is written.
type Options struct {
	// Hyperlinks makes each link's text, each address in the text and
	// each address in the list of links an OSC 8 hyperlink, for terminals
	// that support them. The text then holds escape sequences (which take
	// no cells), each line opening and closing its own.
	Hyperlinks bool
	// Style is the glamour style to lay the mail out with (theme.Markdown);
	// nil writes plain text without any escape sequence
	// (theme.PlainMarkdown, and no hyperlinks).
	Style *ansi.StyleConfig
	// Links are the mail's links as the server lists them
	// (model.Email.Links): "[n]" stands for Links[n-1] there as on every
	// other surface (the list of links at the end holds those the text
	// refers to, with those numbers); links of the HTML not in it are
	// numbered after them.
	Links []string
}

// Result is an HTML body laid out at one width.
type Result struct {
	// Text is the body as lines of sanitized text no wider than the width
	// (except when shown as plain text: see Problem), followed by the list
	// of links ("[1] https://...") when there are any. Without a Style (no
	// terminal) the addresses in that list are whole, an address longer
	// than the width on a line of its own.
	Text string
	// Links are the addresses the reference numbers stand for: "[n]" in
	// Text is Links[n-1] (Options.Links first). Links whose text is their
	// address are shown as they are and not numbered.
	Links []string
	// Problem is set when the HTML could not be laid out (it is too large,
	// or nests too deep); Text then holds it as plain text, not wrapped.
	Problem string
}

// Limits beyond which a body is shown as plain text: glamour's time grows
// with the size of the document and with each level of indentation.
const (
	maxLayoutBytes = 1 << 20
	maxNesting     = 12
)

// Page is an HTML body prepared once (parsed, pruned, its links numbered
// and converted to Markdown), laid out at each width asked for, each once.
// A Page is safe for concurrent use.
type Page struct {
	opts  Options
	body  string
	links *linkSet
	// markdown is the body in Markdown; empty when plain is set.
	markdown string
	// plain is the body as plain text, when it cannot be laid out, with
	// the reason in problem.
	plain, problem string

	mu     sync.Mutex
	widths map[int]Result
}

// Prepare parses and converts an HTML mail body. It never fails: malformed
// HTML is read the way browsers read it, and HTML that cannot be laid out
// is shown as plain text (see Result.Problem).
func Prepare(body string, opts Options) *Page {
	if opts.Style == nil {
		opts.Hyperlinks = false
	}
	p := &Page{opts: opts, body: body, widths: map[int]Result{}}
	if len(body) > maxLayoutBytes { // too large even for html2text: its text only
		p.links = newLinkSet(false, opts.Links)
		p.plain = withLinkList(tidyLines(termtext.Sanitize(textOnly(body, p.links))), p.links)
		p.problem = fmt.Sprintf("shown as plain text: the HTML is %.1f MB, more than the reader lays out", float64(len(body))/(1<<20))
		return p
	}
	doc, err := parse(body)
	if err != nil {
		p.links = newLinkSet(false, opts.Links)
		p.plain, p.problem = withLinkList(tidyLines(termtext.Sanitize(textOnly(body, p.links))), p.links), fmt.Sprintf("shown as plain text: the HTML could not be laid out (%v)", err)
		return p
	}
	p.links = newLinkSet(true, opts.Links) // the sentinels mark links for their style too
	pr := pruner{rules: collectHidingRules(doc), links: p.links, markdown: true}
	pr.prune(doc, false)
	if pr.deepest > maxNesting {
		p.plainText(body, fmt.Sprintf("shown as plain text: its lists and quotes nest %d deep", pr.deepest))
		return p
	}
	md, err := toMarkdown(doc)
	if err != nil {
		p.plainText(body, fmt.Sprintf("shown as plain text: the HTML could not be converted (%v)", err))
		return p
	}
	p.markdown = md
	return p
}

// Render lays out an HTML mail body at width cells; see Prepare.
func Render(body string, width int, opts Options) Result {
	return Prepare(body, opts).Render(width)
}

// Links are the addresses of the page's numbered links, in the order of
// their numbers.
func (p *Page) Links() []string { return p.links.numbered }

// Deception says whether a link of the page, one of Links, has text that
// names another host than its target (linkcheck.Deceptive); the body
// shows the warning next to the link.
func (p *Page) Deception(target string) (linkcheck.Deception, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d, ok := p.links.deceptions[target]
	return d, ok
}

// Render lays the page out at width cells (at least 20).
func (p *Page) Render(width int) Result {
	width = max(width, 20)
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.widths[width]; ok {
		return r
	}
	r := p.render(width)
	if len(p.widths) >= 4 { // a pane has a few widths: keep the latest
		clear(p.widths)
	}
	p.widths[width] = r
	return r
}

func (p *Page) render(width int) Result {
	if p.problem != "" {
		return Result{Text: p.plain, Links: p.links.numbered, Problem: p.problem}
	}
	lines, err := p.layout(width)
	if err != nil {
		p.plainText(p.body, fmt.Sprintf("shown as plain text: the HTML could not be laid out (%v)", err))
		return Result{Text: p.plain, Links: p.links.numbered, Problem: p.problem}
	}
	listed := p.links.listed()
	size := len(lines) + len("\n\nLinks:") + referenceListSize(listed, p.opts.Hyperlinks)
	for _, line := range lines {
		size += len(line)
	}
	var b strings.Builder
	b.Grow(size)
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	if listed != nil {
		b.WriteString("\n\nLinks:")
		referenceList(&b, listed, width, p.opts.Hyperlinks, p.opts.Style == nil)
	}
	return Result{Text: b.String(), Links: p.links.numbered}
}

// plainText sets the page to body as plain text, by html2text.
func (p *Page) plainText(body, problem string) {
	r := renderPlain(body, p.opts.Hyperlinks, p.opts.Links)
	p.links, p.plain, p.problem = r.links, r.Text, problem
	if r.Problem != "" {
		p.problem = "shown as plain text: " + r.Problem
	}
}

// parse reads an HTML document as browsers do, without scripting.
func parse(body string) (*html.Node, error) {
	return html.ParseWithOptions(strings.NewReader(body), html.ParseOptionEnableScripting(false))
}

// styleOf is the style to lay out with.
func (p *Page) styleOf() ansi.StyleConfig {
	if p.opts.Style == nil {
		return theme.PlainMarkdown()
	}
	return *p.opts.Style
}
