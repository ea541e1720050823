package reader

import (
	"fmt"
	"net/url"
	"strings"

	"sandview/model"
	"sandview/tui/ui"
)

// Tab is a view of the open email in the reader, in the order of the
// tab bar and of keys.Tabs.
type Tab int

// The tabs.
const (
	TabBody Tab = iota
	TabHeaders
	TabLinks
	TabAttachments
	TabRaw
	TabAuth
	TabChecks
	TabRendered
)

// readerTab draws one view of the open email. Each tab is its own small
// component: it keeps what it needs (the body's rendering, the raw
// source) and lays its lines out at a width.
type readerTab interface {
	// label is the tab's name in the tab bar, cut (mostly to four
	// letters) when short, with what it counts.
	label(e model.Email, short bool) string
	// lines lays the content for e out at width; choice is the selected
	// row of tabs that have rows to choose from.
	lines(e model.Email, width, choice int) tabContent
}

// tabContent is a tab laid out: lines of at most the width, and for a
// list tab the first and last line of the chosen row.
type tabContent struct {
	lines       []string
	top, bottom int
}

// textContent is a tab of text: the groups of lines one after another.
func textContent(groups ...[]string) tabContent {
	var lines []string
	for _, g := range groups {
		lines = append(lines, g...)
	}
	return tabContent{lines: lines}
}

// listTab is a tab whose rows can be chosen (links, attachments).
type listTab interface {
	readerTab
	count(e model.Email) int
}

// shortName cuts a tab name to four letters when short.
func shortName(name string, short bool) string {
	if short {
		return name[:min(len(name), 4)]
	}
	return name
}

// linksTab lists the links: those the HTML part numbers first, so [n] in
// the body is row n, then the others the server found. The chosen one is
// opened or copied.
type linksTab struct {
	ctx    *ui.Context
	html   *htmlView
	checks *linkChecks
}

func (t linksTab) label(m model.Email, short bool) string {
	return fmt.Sprintf("%s(%d)", shortName("Links", short), t.count(m))
}

func (t linksTab) count(m model.Email) int { return len(t.html.links(m)) }

func (t linksTab) lines(m model.Email, width, choice int) tabContent {
	st := t.ctx.Styles()
	links := t.html.links(m)
	if len(links) == 0 {
		return textContent([]string{st.Muted.Render("No links.")})
	}
	rows := make([]choiceRow, len(links))
	for i, l := range links {
		row := choiceRow{text: l, style: st.Link.Render}
		switch {
		case !OpenableLink(l):
			row.text, row.style = l+"  (not openable)", st.Muted.Render
		case t.html.hyperlinks:
			row.link = l
		}
		d, deceptive := t.html.deception(m, l)
		if deceptive {
			row.text += "  " + d.Warning()
		}
		if r, ok := t.checks.of(m, links, i); ok {
			row = checkedRow(t.ctx, row, r)
		}
		if deceptive {
			row.style = st.AuthFail.Render
		}
		rows[i] = row
	}
	k := t.ctx.Keys
	c := choiceLines(t.ctx, rows, choice, width,
		fmt.Sprintf("%s opens http/https/mailto links in the browser · %s copies", ui.KeyName(k.OpenLink), ui.KeyName(k.Copy)))
	c.lines = append(c.lines, ui.WrapStyled(st.Muted.Render, t.checks.checkHint(t.ctx, m), width)...)
	return c
}

// OpenableLink allows only http, https and mailto URLs.
func OpenableLink(link string) bool {
	u, err := url.Parse(link)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u.Host != ""
	case "mailto":
		return u.Opaque != "" || u.Path != ""
	}
	return false
}

// attachmentsTab lists the attachments; the chosen one is saved or opened.
type attachmentsTab struct{ ctx *ui.Context }

func (t attachmentsTab) label(m model.Email, short bool) string {
	name := "Attachments"
	if short {
		name = "Att"
	}
	return fmt.Sprintf("%s(%d)", name, len(m.Attachments))
}

func (t attachmentsTab) count(m model.Email) int { return len(m.Attachments) }

func (t attachmentsTab) lines(m model.Email, width, choice int) tabContent {
	st := t.ctx.Styles()
	if len(m.Attachments) == 0 {
		return textContent([]string{st.Muted.Render("No attachments.")})
	}
	rows := make([]choiceRow, len(m.Attachments))
	for i, a := range m.Attachments {
		name := a.Filename
		if name == "" {
			name = "(unnamed)"
		}
		size := a.Size
		if size == 0 {
			size = int64(len(a.Content))
		}
		rows[i] = choiceRow{text: name + "  " + a.ContentType + "  " + byteSize(size), style: st.Value.Render}
	}
	k := t.ctx.Keys
	return choiceLines(t.ctx, rows, choice, width,
		fmt.Sprintf("%s saves to a directory (never overwrites) · %s opens", ui.KeyName(k.Save), ui.KeyName(k.OpenLink)))
}

// choiceRow is one row of a list tab: its text, how it is styled, and
// the URL its lines are a hyperlink to, if any.
type choiceRow struct {
	text  string
	style func(...string) string
	link  string
}

// choiceLines lays out the numbered rows of a list tab, wrapped to width
// under their number (a link is never cut), the chosen one highlighted
// across the width, with a hint under them.
func choiceLines(ctx *ui.Context, rows []choiceRow, choice, width int, hint string) tabContent {
	st := ctx.Styles()
	var c tabContent
	digits := max(len(fmt.Sprint(len(rows))), 3)
	indent := digits + 1 // "  1 "
	pad := strings.Repeat(" ", indent)
	for i, r := range rows {
		if i == choice {
			c.top = len(c.lines)
		}
		for j, l := range ui.Wrap(r.text, max(width-indent, 1)) {
			prefix := pad
			if j == 0 {
				prefix = fmt.Sprintf("%*d ", digits, i+1)
			}
			line := st.Number.Render(prefix) + r.style(l)
			if i == choice {
				line = st.Selected.Render(ui.Fit(prefix+l, width))
			}
			if r.link != "" {
				line = ui.Hyperlink(r.link, line) // around the styles, which would lose it
			}
			c.lines = append(c.lines, line)
		}
		if i == choice {
			c.bottom = len(c.lines) - 1
		}
	}
	c.lines = append(c.lines, "")
	c.lines = append(c.lines, ui.WrapStyled(st.Muted.Render, hint, width)...)
	return c
}

// byteSize is a human-readable size.
func byteSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

// authTab is the authentication report, as the host lays it out.
type authTab struct{ host Host }

func (t authTab) label(_ model.Email, short bool) string { return shortName("Auth", short) }

func (t authTab) lines(m model.Email, width, _ int) tabContent {
	return textContent(t.host.AuthLines(m, width))
}
