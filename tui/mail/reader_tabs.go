package mail

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/jaytaylor/html2text"

	"sandview/model"
	"sandview/tui/ui"
)

// tab is a view of the open email in the reader.
type tab int

const (
	tabBody tab = iota
	tabHeaders
	tabLinks
	tabAttachments
	tabRaw
	tabAuth
	tabCount
)

// readerTab draws one view of the open email. Each tab is its own small
// component: it keeps what it needs (the body's wrap cache, the raw
// source) and draws lines at a width.
type readerTab interface {
	// label is the tab's name in the tab bar, cut to four letters when
	// short, with what it counts.
	label(e model.Email, short bool) string
	// lines draws the content for e at width; choice is the selected row
	// of tabs that have rows to choose from.
	lines(e model.Email, width, choice int) []string
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

// bodyTab is the text part, or the HTML part converted to text when there
// is no text part or HTML is toggled on; wrapped and cached.
type bodyTab struct {
	ctx   *ui.Context
	html  bool
	cache struct {
		id    string
		width int
		html  bool
		has   bool
		lines []string
	}
}

func (t *bodyTab) label(_ model.Email, short bool) string {
	name := shortName("Body", short)
	if t.html {
		name += "·html"
	}
	return name
}

func (t *bodyTab) lines(m model.Email, width, _ int) []string {
	c := &t.cache
	if c.has && c.id == m.ID && c.width == width && c.html == t.html {
		return c.lines
	}
	text := m.Text
	note := ""
	switch {
	case t.html && m.HTML == "":
		note = "(this email has no HTML part; showing the text part)"
	case t.html || (strings.TrimSpace(text) == "" && m.HTML != ""):
		text = htmlToText(m.HTML)
		if !t.html {
			note = "(no text part; HTML converted to text)"
		}
	}
	if strings.TrimSpace(text) == "" {
		text = "(empty body)"
	}
	lines := ui.Wrap(text, width)
	if note != "" {
		lines = append([]string{t.ctx.Styles().Muted.Render(note), ""}, lines...)
	}
	c.id, c.width, c.html, c.has, c.lines = m.ID, width, t.html, true, lines
	return lines
}

// htmlToText converts HTML to readable text; the result is sanitized again
// because entities such as &#27; decode to control characters.
func htmlToText(html string) string {
	text, err := html2text.FromString(html, html2text.Options{OmitLinks: false})
	if err != nil {
		return "(the HTML part could not be converted: " + err.Error() + ")"
	}
	return model.SanitizeText(text)
}

// headersTab lists the headers, sorted by name.
type headersTab struct{ ctx *ui.Context }

func (t headersTab) label(_ model.Email, short bool) string { return shortName("Headers", short) }

func (t headersTab) lines(m model.Email, width, _ int) []string {
	st := t.ctx.Styles()
	if len(m.Headers) == 0 {
		return []string{st.Muted.Render("No headers.")}
	}
	names := make([]string, 0, len(m.Headers))
	for name := range m.Headers {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return strings.ToLower(names[i]) < strings.ToLower(names[j]) })
	var out []string
	for _, name := range names {
		wrapped := ui.Wrap(m.Headers[name], max(width-4, 10))
		first := ""
		if len(wrapped) > 0 {
			first = wrapped[0]
		}
		out = append(out, st.Label.Render(name+":")+" "+st.Value.Render(first))
		for _, l := range wrapped[1:] {
			out = append(out, "    "+st.Value.Render(l))
		}
	}
	return out
}

// linksTab lists the links; the chosen one is opened or copied.
type linksTab struct{ ctx *ui.Context }

func (t linksTab) label(m model.Email, short bool) string {
	return fmt.Sprintf("%s(%d)", shortName("Links", short), len(m.Links))
}

func (t linksTab) count(m model.Email) int { return len(m.Links) }

func (t linksTab) lines(m model.Email, width, choice int) []string {
	st := t.ctx.Styles()
	if len(m.Links) == 0 {
		return []string{st.Muted.Render("No links.")}
	}
	rows := make([]choiceRow, len(m.Links))
	for i, l := range m.Links {
		num := fmt.Sprintf("%3d ", i+1)
		text := st.Link.Render(l)
		if !openableLink(l) {
			text = st.Muted.Render(l + "  (not openable)")
		}
		rows[i] = choiceRow{plain: num + l, styled: st.Number.Render(num) + text}
	}
	k := t.ctx.Keys
	return choiceLines(t.ctx, rows, choice, width,
		fmt.Sprintf("%s opens http/https/mailto links in the browser · %s copies", ui.KeyName(k.OpenLink), ui.KeyName(k.Copy)))
}

// openableLink allows only http, https and mailto URLs.
func openableLink(link string) bool {
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
	return fmt.Sprintf("%s(%d)", shortName("Attachments", short), len(m.Attachments))
}

func (t attachmentsTab) count(m model.Email) int { return len(m.Attachments) }

func (t attachmentsTab) lines(m model.Email, width, choice int) []string {
	st := t.ctx.Styles()
	if len(m.Attachments) == 0 {
		return []string{st.Muted.Render("No attachments.")}
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
		rows[i] = choiceRow{
			plain:  fmt.Sprintf("%3d %s  %s  %s", i+1, name, a.ContentType, byteSize(size)),
			styled: st.Number.Render(fmt.Sprintf("%3d ", i+1)) + st.Value.Render(name) + st.Muted.Render("  "+a.ContentType+"  "+byteSize(size)),
		}
	}
	k := t.ctx.Keys
	return choiceLines(t.ctx, rows, choice, width,
		fmt.Sprintf("%s saves to a directory (never overwrites) · %s opens", ui.KeyName(k.Save), ui.KeyName(k.OpenLink)))
}

// choiceRow is one row of a list tab: as text, and styled.
type choiceRow struct{ plain, styled string }

// choiceLines draws the rows of a list tab, the chosen one highlighted
// across the width, with a hint under them.
func choiceLines(ctx *ui.Context, rows []choiceRow, choice, width int, hint string) []string {
	st := ctx.Styles()
	out := make([]string, 0, len(rows)+2)
	for i, r := range rows {
		if i == choice {
			out = append(out, st.Selected.Render(ui.Fit(r.plain, width)))
		} else {
			out = append(out, r.styled)
		}
	}
	return append(out, "", st.Muted.Render(hint))
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

// rawTab is the RFC 5322 source, fetched the first time it is shown.
type rawTab struct {
	ctx     *ui.Context
	raw     string // sanitized
	loading bool
	err     string
	version int // changes with the source, so the reader redraws
}

func (t *rawTab) label(_ model.Email, short bool) string { return shortName("Raw", short) }

// reset forgets the source of the previous email.
func (t *rawTab) reset() {
	t.raw, t.loading, t.err = "", false, ""
	t.version++
}

// set stores the fetched source, or why it could not be fetched.
func (t *rawTab) set(raw []byte, err error) {
	t.loading = false
	t.version++
	if err != nil {
		t.err = err.Error()
		return
	}
	t.raw = model.SanitizeText(string(raw))
}

// needed reports whether the source should be fetched.
func (t *rawTab) needed() bool { return t.raw == "" && !t.loading && t.err == "" }

func (t *rawTab) lines(_ model.Email, width, _ int) []string {
	st := t.ctx.Styles()
	switch {
	case t.err != "":
		return []string{st.FieldError.Render("Could not fetch the raw source: " + t.err)}
	case t.raw == "":
		return []string{st.Muted.Render("Loading the raw source…")}
	}
	return ui.Wrap(t.raw, width)
}

// authTab is the authentication report.
type authTab struct{ ctx *ui.Context }

func (t authTab) label(_ model.Email, short bool) string { return shortName("Auth", short) }

func (t authTab) lines(m model.Email, width, _ int) []string { return authReportLines(t.ctx, m, width) }
