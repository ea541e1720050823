// Package htmltext turns the HTML body of a mail into terminal text that
// reads like the mail: headings, paragraphs, lists, emphasis, data tables
// as aligned text, images as "[image: alt]" and links as "text [n]" with a
// numbered list of their full addresses at the end. What a mail reader
// hides (display:none, visibility:hidden, zero sizes and font sizes,
// opacity 0, <head>, <style>, <script>) is left out, so the hidden
// preheaders of newsletters do not show.
//
// It parses the HTML with golang.org/x/net/html, prunes and rewrites the
// tree, then hands it to html2text (with its pretty tables). The result is
// sanitized (model.SanitizeText), never wrapped and never cut: wrapping to
// the pane is the caller's job, and model.TextWidth measures every line.
package htmltext

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/jaytaylor/html2text"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"sandview/model"
)

// Options changes how Render writes its text.
type Options struct {
	// Hyperlinks makes each link's text, and each address in the list of
	// links, an OSC 8 hyperlink for terminals that support them. The text
	// then holds escape sequences (which take no cells), each line opening
	// and closing its own.
	Hyperlinks bool
}

// Result is an HTML body rendered as text.
type Result struct {
	// Text is the body as lines of sanitized text, followed by the list of
	// links ("[1] https://...") when there are any.
	Text string
	// Links are the addresses the reference numbers stand for: "[n]" in
	// Text is Links[n-1]. Links whose text is their address are shown as
	// they are and not numbered.
	Links []string
	// Problem is set when the HTML could not be laid out (it nests more
	// than 512 elements deep, for one); Text then holds its text only,
	// paragraph by paragraph.
	Problem string
}

// Render converts an HTML mail body. It never fails: malformed HTML is read
// the way browsers read it, and HTML that cannot be laid out still yields
// its text (see Result.Problem).
func Render(body string, opts Options) Result {
	doc, err := html.ParseWithOptions(strings.NewReader(body), html.ParseOptionEnableScripting(false))
	if err != nil {
		return Result{Text: tidyLines(model.SanitizeText(textOnly(body))), Problem: fmt.Sprintf("the HTML could not be laid out (%v); showing its text", err)}
	}
	links := newLinkSet(opts.Hyperlinks)
	p := pruner{rules: collectHidingRules(doc), links: links}
	p.prune(doc, false)

	tables := html2text.NewPrettyTablesOptions()
	tables.AutoFormatHeader = false // keep the header cells as written
	text, err := html2text.FromHTMLNode(doc, html2text.Options{PrettyTables: true, PrettyTablesOptions: tables, OmitLinks: true})
	if err != nil {
		return Result{Text: tidyLines(model.SanitizeText(textOnly(body))), Problem: fmt.Sprintf("the HTML could not be converted (%v); showing its text", err)}
	}
	if opts.Hyperlinks {
		text = hyperlinked(text, links.targets)
	} else {
		text = model.SanitizeText(text)
	}
	text = tidyLines(text)
	if len(links.numbered) > 0 {
		text += "\n\nLinks:\n" + referenceList(links.numbered, opts.Hyperlinks)
	}
	return Result{Text: text, Links: links.numbered}
}

// textOnly is the text of an HTML document read token by token, without
// building its tree: a line break at each block element and line break,
// nothing from <head>, <style> or <script>.
func textOnly(body string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(body))
	skip := 0 // depth inside elements whose text is not shown
	for {
		token := z.Next()
		switch token {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.WriteString(strings.Join(strings.Fields(string(z.Text())), " ") + " ")
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Head, atom.Style, atom.Script, atom.Title:
				if token == html.StartTagToken {
					skip++
				} else if token == html.EndTagToken {
					skip = max(skip-1, 0)
				}
			case atom.Br, atom.P, atom.Div, atom.Tr, atom.Li, atom.Table, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				b.WriteByte('\n')
			}
		}
	}
}

// tidyLines trims white space (no-break and figure spaces too, which mail
// templates pad with) from the end of each line, ahead of any hyperlink
// sequences there, and keeps at most one blank line in a row, and none at
// the start or end.
func tidyLines(text string) string {
	lines := strings.Split(text, "\n")
	out := lines[:0]
	blank := true
	for _, line := range lines {
		if strings.TrimSpace(ansi.Strip(line)) == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, trimLineEnd(line))
		blank = false
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// trimLineEnd trims the white space that ends a line's text, keeping the
// hyperlink sequences that follow it.
func trimLineEnd(line string) string {
	const space = " \t\u00a0\u2007\u202f\u3000"
	sequences := ""
	for {
		line = strings.TrimRight(line, space)
		start := strings.LastIndex(line, "\x1b]8;")
		if start < 0 || !strings.HasSuffix(line, "\a") {
			return line + sequences
		}
		sequences = line[start:] + sequences
		line = line[:start]
	}
}

// referenceList writes "[n] address" lines.
func referenceList(targets []string, hyperlinks bool) string {
	var b strings.Builder
	for i, target := range targets {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("[" + strconv.Itoa(i+1) + "] ")
		if hyperlinks {
			b.WriteString(hyperlink(target, target))
		} else {
			b.WriteString(target)
		}
	}
	return b.String()
}
