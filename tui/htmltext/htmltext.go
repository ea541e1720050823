// Package htmltext lays the HTML body of a mail out for the terminal the
// way it was designed to read: headings styled, bold, italic and
// strikethrough as terminal attributes, lists and quoted replies indented,
// data tables as tables (layout tables flattened), images as a dim
// "[image: alt]" (or "[image]"), buttons as "[ Buy now ]" and links as "text [n]" with a
// numbered list of their full addresses at the end, as OSC 8 hyperlinks
// when the terminal takes them. What a mail reader hides (display:none,
// visibility:hidden, zero sizes and font sizes, opacity 0, <head>,
// <style>, <script>) is left out, so the hidden preheaders of newsletters
// do not show.
//
// It parses the HTML with golang.org/x/net/html, prunes and rewrites the
// tree (sanitizing every text with termtext.Sanitize), converts it to
// Markdown with html-to-markdown and lays that out with glamour in the
// theme's style (theme.Markdown) at the pane's width. The lines glamour
// writes are rewritten cell by cell: only the styles and the hyperlinks
// made here reach the terminal, and no line is wider than the pane.
// HTML too large or too deeply nested to lay out in time is shown as plain
// text by html2text, as before, with a note saying so (Result.Problem).
package htmltext

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"sandview/tui/ui"
)

// textOnly is the text of an HTML document read token by token, without
// building its tree: white space collapsed, a line break at each block
// element and line break, nothing from <head>, <style> or <script>, and
// each link numbered in links after its text ("text [n]") unless its text
// is its address.
func textOnly(body string, links *linkSet) string {
	var b bytes.Buffer
	space := func() { // one space between words, none at the start of a line
		if n := b.Len(); n > 0 && b.Bytes()[n-1] != ' ' && b.Bytes()[n-1] != '\n' {
			b.WriteByte(' ')
		}
	}
	z := html.NewTokenizer(strings.NewReader(body))
	skip := 0                 // depth inside elements whose text is not shown
	target, linkText := "", 0 // the link being read, and where its text starts in b
	for {
		token := z.Next()
		switch token {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip > 0 {
				continue
			}
			text := z.Text()
			if len(text) > 0 && isSpace(text[0]) {
				space()
			}
			for i, field := range bytes.Fields(text) {
				if i > 0 {
					space()
				}
				b.Write(field)
			}
			if len(text) > 0 && isSpace(text[len(text)-1]) && len(bytes.TrimSpace(text)) > 0 {
				space()
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch atom.Lookup(name) {
			case atom.Head, atom.Style, atom.Script, atom.Title:
				if token == html.StartTagToken {
					skip++
				} else if token == html.EndTagToken {
					skip = max(skip-1, 0)
				}
			case atom.A:
				if token == html.StartTagToken {
					target, linkText = "", b.Len()
					for hasAttr {
						var key, value []byte
						key, value, hasAttr = z.TagAttr()
						if string(key) == "href" {
							target, _ = linkTarget(string(value))
						}
					}
				} else if token == html.EndTagToken && target != "" && skip == 0 {
					text := string(bytes.TrimSpace(b.Bytes()[min(linkText, b.Len()):]))
					if text != "" && text != target && text != strings.TrimPrefix(target, "mailto:") {
						spaced := bytes.HasSuffix(b.Bytes(), []byte(" "))
						if spaced {
							b.Truncate(b.Len() - 1)
						}
						b.WriteString(" [" + strconv.Itoa(links.number(target)) + "]")
						if d, ok := links.deceptive(text, target); ok {
							b.WriteString(" (" + d.Warning() + ")")
						}
						if spaced {
							b.WriteByte(' ')
						}
					}
					target = ""
				}
			case atom.Br, atom.P, atom.Div, atom.Tr, atom.Li, atom.Table, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				b.WriteByte('\n')
			}
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// withLinkList is text followed by the list of links, when there are any.
func withLinkList(text string, links *linkSet) string {
	listed := links.listed()
	if listed == nil {
		return text
	}
	return text + "\n\nLinks:\n" + referenceListPlain(listed, false)
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
		if strings.TrimSpace(line) == "" || strings.ContainsRune(line, ansi.ESC) && strings.TrimSpace(ansi.Strip(line)) == "" {
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

// referenceListPlain writes "[n] address" lines, not wrapped, for the
// targets that are not "".
func referenceListPlain(targets []string, hyperlinks bool) string {
	var b strings.Builder
	for i, target := range targets {
		if target == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("[" + strconv.Itoa(i+1) + "] ")
		if hyperlinks {
			b.WriteString(ui.Hyperlink(target, target))
		} else {
			b.WriteString(target)
		}
	}
	return b.String()
}
