package reader

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/glamour/v2/ansi"

	"sandview/client/linkcheck"
	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/htmltext"
	"sandview/tui/ui"
)

// htmlView is the HTML part of the open email prepared for the terminal
// (htmltext.Prepare), once per email: the body lays it out at its width,
// the links tab reads its links.
type htmlView struct {
	hyperlinks bool              // OSC 8 hyperlinks in the text
	id, html   string            // the email prepared, and its HTML
	style      *ansi.StyleConfig // the style it was prepared in
	page       *htmltext.Page
	linked     []string // page.Links(), then the email's other links
}

// of prepares the HTML part of m in style unless it is the one prepared
// last.
func (h *htmlView) of(m model.Email, style *ansi.StyleConfig) *htmltext.Page {
	if h.page == nil || h.id != m.ID || h.html != m.HTML || h.style != style {
		h.id, h.html, h.style = m.ID, m.HTML, style
		h.page = htmltext.Prepare(m.HTML, htmltext.Options{Hyperlinks: h.hyperlinks, Style: style, Links: m.Links})
		h.linked = append(slices.Clone(h.page.Links()), otherLinks(m.Links, h.page.Links())...)
		if len(h.linked) > MaxLinks {
			h.linked = h.linked[:MaxLinks:MaxLinks]
		}
		if h.linked == nil {
			h.linked = []string{}
		}
	}
	return h.page
}

// links are the links of m in the order the links tab lists them: those
// the HTML part numbers ([n] in its text is links[n-1]), then the others
// the server found.
func (h *htmlView) links(m model.Email) []string {
	if m.HTML == "" {
		return m.Links
	}
	h.of(m, h.style) // the links are the same in every style
	return h.linked
}

// deception says whether the HTML part of m has a link whose text names
// another host than it leads to (htmltext.Page.Deception).
func (h *htmlView) deception(m model.Email, link string) (linkcheck.Deception, bool) {
	if m.HTML == "" {
		return linkcheck.Deception{}, false
	}
	return h.of(m, h.style).Deception(link)
}

// otherLinks are the links of all not in numbered (as the page writes
// them, htmltext.Target), without repeats.
func otherLinks(all, numbered []string) []string {
	seen := make(map[string]bool, len(numbered))
	for _, l := range numbered {
		seen[l] = true
	}
	added := map[string]bool{}
	var out []string
	for _, l := range all {
		if !seen[htmltext.Target(l)] && !added[l] {
			added[l] = true
			out = append(out, l)
		}
	}
	return out
}

// wrapCache keeps one text laid out at one width, for one email and one
// variant of the text.
type wrapCache struct {
	id      string
	width   int
	variant int
	lines   []string
}

// get returns the lines for id, width and variant, laying them out with
// layout only when they are not those kept.
func (c *wrapCache) get(id string, width, variant int, layout func() []string) []string {
	if c.lines == nil || c.id != id || c.width != width || c.variant != variant {
		c.id, c.width, c.variant, c.lines = id, width, variant, layout()
	}
	return c.lines
}

// bodyTab is the text part, or the HTML part as text when there is no
// text part or HTML is toggled on.
type bodyTab struct {
	ctx      *ui.Context
	html     *htmlView
	showHTML bool
	wrapped  wrapCache
	style    *ansi.StyleConfig // the theme's Markdown style, once made
}

func (t *bodyTab) label(_ model.Email, short bool) string {
	name := shortName("Body", short)
	if t.showHTML {
		name += "·html"
	}
	return name
}

// squeezed is the label when even the short labels leave no room: Html
// while the HTML part is shown, as long as Body.
func (t *bodyTab) squeezed() string {
	if t.showHTML {
		return "Html"
	}
	return "Body"
}

func (t *bodyTab) lines(m model.Email, width, _ int) tabContent {
	variant := 0
	if t.showHTML {
		variant = 1
	}
	return textContent(t.wrapped.get(m.ID, width, variant, func() []string { return t.layout(m, width) }))
}

// htmlPage is the HTML part of m prepared in the theme's style.
func (t *bodyTab) htmlPage(m model.Email) *htmltext.Page {
	if t.style == nil {
		style := t.ctx.Theme.Markdown()
		t.style = &style
	}
	return t.html.of(m, t.style)
}

// layout wraps the body of m, under a note saying which part it is.
func (t *bodyTab) layout(m model.Email, width int) []string {
	muted := t.ctx.Styles().Muted.Render
	text := m.Text
	var notes []string
	switch {
	case t.showHTML && m.HTML == "":
		notes = append(notes, "(this email has no HTML part; showing the text part)")
	case t.showHTML || (strings.TrimSpace(text) == "" && m.HTML != ""):
		r := t.htmlPage(m).Render(width)
		text = r.Text
		if !t.showHTML {
			notes = append(notes, "(no text part; HTML converted to text)")
		}
		if r.Problem != "" {
			notes = append(notes, "("+r.Problem+")")
		}
	}
	if strings.TrimSpace(text) == "" {
		text = "(empty body)"
	} else if text == m.Text {
		text = markEmptyParts(text)
		if t.html.hyperlinks {
			text = ui.LinkText(text, m.Links)
		}
	}
	var lines []string
	for _, n := range notes {
		lines = append(lines, ui.WrapStyled(muted, n, width)...)
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	lines = append(lines, ui.Wrap(text, width)...)
	if cutLinks(m, text, width) {
		k := t.ctx.Keys
		lines = append(lines, "")
		lines = append(lines, ui.WrapStyled(muted, fmt.Sprintf("(links too long for the pane are cut with …: %s lists them whole, %s opens, %s copies)",
			ui.KeyName(k.TabLinks), ui.KeyName(k.OpenLink), ui.KeyName(k.Copy)), width)...)
	}
	return lines
}

// cutLinks reports whether text shows one of m's links that is wider than
// width, which the wrapper cuts.
func cutLinks(m model.Email, text string, width int) bool {
	for _, l := range m.Links {
		if termtext.Width(l) > width && strings.Contains(text, l) {
			return true
		}
	}
	return false
}

// partSeparator is what the server puts between the text parts of a
// multipart/mixed message when it joins them into the text body (see
// server/mailparse).
const partSeparator = "\n--\n"

// markEmptyParts shows each blank text part of a joined text body as
// "(empty part)" rather than as nothing between two "--" lines.
func markEmptyParts(text string) string {
	if !strings.Contains(text, partSeparator) {
		return text
	}
	parts := strings.Split(text, partSeparator)
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			parts[i] = "(empty part)"
		}
	}
	return strings.Join(parts, partSeparator)
}
