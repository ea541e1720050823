package tui

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/jaytaylor/html2text"

	"sandview/model"
)

// tab is a view of the open message.
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

var tabNames = [tabCount]string{"Body", "Headers", "Links", "Attachments", "Raw", "Auth"}

// messagePane shows the open email in tabs.
type messagePane struct {
	sh      *shared
	address string // inbox of the open email
	id      string // open email ("" = none)
	tab     tab
	offset  int // scroll offset of the content
	choice  int // selected link or attachment
	html    bool
	width   int
	height  int

	raw        string // sanitized raw source of the open email
	rawLoading bool
	rawErr     string

	cache bodyCache
}

// bodyCache holds the wrapped lines of the last rendered body so frames do
// no wrapping work.
type bodyCache struct {
	id    string
	width int
	html  bool
	has   bool
	lines []string
}

func newMessagePane(sh *shared) *messagePane { return &messagePane{sh: sh} }

// SetSize sets the outer size of the pane.
func (p *messagePane) SetSize(width, height int) { p.width, p.height = width, height }

// open shows another email.
func (p *messagePane) open(address, id string) {
	if p.address == address && p.id == id {
		return
	}
	p.address, p.id = address, id
	p.offset, p.choice = 0, 0
	p.raw, p.rawLoading, p.rawErr = "", false, ""
	p.cache = bodyCache{}
}

// close shows no email.
func (p *messagePane) close() { p.open("", "") }

// setTab switches tabs.
func (p *messagePane) setTab(t tab) {
	if t != p.tab {
		p.tab = t
		p.offset, p.choice = 0, 0
	}
}

// setRaw stores the fetched source.
func (p *messagePane) setRaw(raw []byte, err error) {
	p.rawLoading = false
	if err != nil {
		p.rawErr = err.Error()
		return
	}
	p.raw = model.SanitizeText(string(raw))
}

// headerHeight is the number of body lines above the tab content.
const headerHeight = 6

func (p *messagePane) contentHeight() int { return max(p.height-2-headerHeight, 1) }

// scroll moves the content, or the selection in the Links and Attachments
// tabs.
func (p *messagePane) scroll(m model.Email, delta int) {
	switch p.tab {
	case tabLinks:
		p.choice = clampInt(p.choice+delta, 0, len(m.Links)-1)
		p.keepChoiceVisible()
	case tabAttachments:
		p.choice = clampInt(p.choice+delta, 0, len(m.Attachments)-1)
		p.keepChoiceVisible()
	default:
		p.offset = max(p.offset+delta, 0)
	}
}

func (p *messagePane) keepChoiceVisible() {
	h := p.contentHeight()
	if p.choice < p.offset {
		p.offset = p.choice
	}
	if p.choice >= p.offset+h {
		p.offset = p.choice - h + 1
	}
}

// View renders the pane for email m (the open one).
func (p *messagePane) View(m model.Email, found, focused bool) string {
	st := p.sh.styles()
	inner := p.width - 2
	title := "Message"
	if p.id == "" || !found {
		body := []string{st.Muted.Render("Select a message and press enter to open it.")}
		return frame(p.sh, title, focused, p.width, p.height, body)
	}
	label := func(name, value string) string {
		return st.Label.Render(fmt.Sprintf("%-8s", name)) + st.Value.Render(value)
	}
	subject := m.Subject
	if subject == "" {
		subject = "(no subject)"
	}
	date := "unknown"
	if !m.ReceivedAt.IsZero() {
		age := relativeTime(m.ReceivedAt, p.sh.now)
		if age == "now" {
			age = "just now"
		} else if !strings.Contains(age, " ") && len(age) <= 4 {
			age += " ago"
		}
		date = m.ReceivedAt.In(p.sh.now.Location()).Format("2006-01-02 15:04:05") + " (" + age + ")"
	}
	head := []string{label("From", m.From), label("To", strings.Join(m.To, ", ")), label("Subject", subject), label("Date", date)}
	if m.Problem != "" {
		head[3] = st.Problem.Render(fit(" ⚠ CANNOT OPEN THIS EMAIL: "+m.Problem+" — content not shown", inner))
	}
	head = append(head, p.tabLine(m, inner), st.Muted.Render(strings.Repeat("─", inner)))
	lines := p.content(m, inner)
	h := p.contentHeight()
	p.offset = clampInt(p.offset, 0, len(lines)-h)
	body := append(head, window(lines, p.offset, h)...)
	if len(lines) > h {
		title = fmt.Sprintf("Message %d%%", min(100, (p.offset+h)*100/len(lines)))
	}
	return frame(p.sh, title, focused, p.width, p.height, body)
}

// tabLine renders the tab bar, with short names when the full ones do not
// fit.
func (p *messagePane) tabLine(m model.Email, width int) string {
	st := p.sh.styles()
	labels := func(short bool) []string {
		out := make([]string, tabCount)
		for t := tab(0); t < tabCount; t++ {
			name := tabNames[t]
			if short {
				name = name[:min(len(name), 4)]
			}
			switch t {
			case tabLinks:
				name += fmt.Sprintf("(%d)", len(m.Links))
			case tabAttachments:
				name += fmt.Sprintf("(%d)", len(m.Attachments))
			case tabBody:
				if p.html {
					name += "·html"
				}
			}
			out[t] = fmt.Sprintf(" %d %s ", t+1, name)
		}
		return out
	}
	list := labels(false)
	if ansi.StringWidth(strings.Join(list, "")) > width {
		list = labels(true)
	}
	var sb strings.Builder
	for t, label := range list {
		if tab(t) == p.tab {
			sb.WriteString(st.TabActive.Render(label))
		} else {
			sb.WriteString(st.TabInactive.Render(label))
		}
	}
	return sb.String()
}

// content renders the lines of the current tab.
func (p *messagePane) content(m model.Email, width int) []string {
	st := p.sh.styles()
	if m.Problem != "" {
		return []string{
			st.Problem.Render("⚠ This email could not be opened: " + m.Problem + "."),
			st.Muted.Render("It may not come from the server this inbox was created on, or it was"),
			st.Muted.Render("tampered with. Its content is not shown."),
		}
	}
	if !m.HasContent && p.tab != tabRaw {
		return []string{st.Muted.Render("Loading the message content…")}
	}
	switch p.tab {
	case tabHeaders:
		return p.headerLines(m, width)
	case tabLinks:
		return p.linkLines(m, width)
	case tabAttachments:
		return p.attachmentLines(m, width)
	case tabRaw:
		switch {
		case p.rawErr != "":
			return []string{st.FieldError.Render("Could not fetch the raw source: " + p.rawErr)}
		case p.raw == "":
			return []string{st.Muted.Render("Loading the raw source…")}
		}
		return wrap(p.raw, width)
	case tabAuth:
		return authReportLines(p.sh, m, width)
	}
	return p.bodyLines(m, width)
}

// bodyLines is the text part, or the HTML part converted to text when there
// is no text part or HTML is toggled on; wrapped and cached.
func (p *messagePane) bodyLines(m model.Email, width int) []string {
	c := &p.cache
	if c.has && c.id == m.ID && c.width == width && c.html == p.html {
		return c.lines
	}
	text := m.Text
	note := ""
	switch {
	case p.html && m.HTML == "":
		note = "(this email has no HTML part; showing the text part)"
	case p.html || (strings.TrimSpace(text) == "" && m.HTML != ""):
		text = htmlToText(m.HTML)
		if !p.html {
			note = "(no text part; HTML converted to text)"
		}
	}
	if strings.TrimSpace(text) == "" {
		text = "(empty body)"
	}
	lines := wrap(text, width)
	if note != "" {
		lines = append([]string{p.sh.styles().Muted.Render(note), ""}, lines...)
	}
	*c = bodyCache{id: m.ID, width: width, html: p.html, has: true, lines: lines}
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

func (p *messagePane) headerLines(m model.Email, width int) []string {
	st := p.sh.styles()
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
		wrapped := wrap(m.Headers[name], max(width-4, 10))
		out = append(out, st.Label.Render(name+":")+" "+st.Value.Render(firstOr(wrapped)))
		for _, l := range wrapped[1:] {
			out = append(out, "    "+st.Value.Render(l))
		}
	}
	return out
}

func firstOr(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}

func (p *messagePane) linkLines(m model.Email, width int) []string {
	st := p.sh.styles()
	if len(m.Links) == 0 {
		return []string{st.Muted.Render("No links.")}
	}
	out := make([]string, 0, len(m.Links)+2)
	for i, l := range m.Links {
		num := fmt.Sprintf("%3d ", i+1)
		if i == p.choice {
			out = append(out, st.Selected.Render(fit(num+l, width)))
			continue
		}
		text := st.Link.Render(l)
		if !openableLink(l) {
			text = st.Muted.Render(l + "  (not openable)")
		}
		out = append(out, st.Number.Render(num)+text)
	}
	return append(out, "", st.Muted.Render("o opens http/https/mailto links in the browser · y copies"))
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

func (p *messagePane) attachmentLines(m model.Email, width int) []string {
	st := p.sh.styles()
	if len(m.Attachments) == 0 {
		return []string{st.Muted.Render("No attachments.")}
	}
	out := make([]string, 0, len(m.Attachments)+2)
	for i, a := range m.Attachments {
		name := a.Filename
		if name == "" {
			name = "(unnamed)"
		}
		size := a.Size
		if size == 0 {
			size = int64(len(a.Content))
		}
		line := fmt.Sprintf("%3d %s  %s  %s", i+1, name, a.ContentType, byteSize(size))
		if i == p.choice {
			out = append(out, st.Selected.Render(fit(line, width)))
			continue
		}
		out = append(out, st.Number.Render(fmt.Sprintf("%3d ", i+1))+st.Value.Render(name)+st.Muted.Render("  "+a.ContentType+"  "+byteSize(size)))
	}
	return append(out, "", st.Muted.Render("s saves to a directory (never overwrites) · o opens"))
}
