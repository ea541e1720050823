package reader

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/ui"
)

// Reader is the pane showing the open email: its headers, then one of its
// tabs (readerTab). The tabs lay their lines out once per email and width
// and keep them; a frame only slices the lines in view.
type Reader struct {
	ctx   *ui.Context
	host  Host
	set   *ui.Settings    // the TUI's settings (shared)
	calls context.Context // cancels the link check and the render
	// address is the inbox of the open email.
	address string
	id      string // open email ("" = none)
	bar     tabBar // the row of tabs and the shown one
	sum     summary
	choice  int // selected row of a list tab
	body    *bodyTab
	html    *htmlView
	checks  *linkChecks
	source  *source
	// rendered is the Rendered tab: the HTML part as a picture.
	rendered *renderedTab
	scroll   ui.Scroller
	drawn    contentKey // what the scroller holds
	chosen   [2]int     // the lines of the chosen row of a list tab
	finder   *findBar   // the search in the open email
	pipe     *piper     // pipes the open message to a command
	width    int
	height   int
	focused  bool
}

// contentKey is everything the tab content depends on: the lines are laid
// out again only when it changes.
type contentKey struct {
	id          string
	hasContent  bool
	problem     string
	links, atts int
	tab         Tab
	width       int
	choice      int
	html        bool
	source      int
	checks      int
	dark, plain bool
	renders     int         // the Rendered tab's version
	graphics    ui.Graphics // how the terminal draws pictures
}

// New returns the reader in host, showing no email; calls cancels the
// link check and the render when the program ends.
func New(ctx *ui.Context, calls context.Context, set *ui.Settings, host Host) *Reader {
	html := &htmlView{hyperlinks: set.Hyperlinks}
	r := &Reader{ctx: ctx, host: host, set: set, calls: calls, bar: tabBar{ctx: ctx}, sum: summary{ctx: ctx}, html: html, body: &bodyTab{ctx: ctx, html: html}, source: &source{}, checks: &linkChecks{}}
	r.finder = &findBar{ctx: ctx, scroll: &r.scroll, drawn: &r.drawn,
		relayout: func() { r.refresh(r.Email()) },
		resize:   func() { r.scroll.SetHeight(r.contentHeight()) },
	}
	r.pipe = &piper{ctx: ctx, host: host, calls: calls, set: set}
	r.rendered = &renderedTab{ctx: ctx, body: r.body, renderer: set.Renderer}
	r.bar.tabs = []readerTab{ // one line each, in the order of tab's constants
		TabBody:        r.body,
		TabHeaders:     &headersTab{ctx: ctx, source: r.source},
		TabLinks:       linksTab{ctx: ctx, html: html, checks: r.checks},
		TabAttachments: attachmentsTab{ctx},
		TabRaw:         &rawTab{ctx: ctx, source: r.source},
		TabAuth:        authTab{host},
		TabChecks:      &checksTab{ctx: ctx},
		TabRendered:    r.rendered,
	}
	return r
}

// SetSize sets the outer size of the pane.
func (r *Reader) SetSize(width, height int) {
	r.width, r.height = width, height
	r.sum.tall = height >= subjectWrapHeight
	r.scroll.SetHeight(r.contentHeight())
}

// SetFocus tells the pane whether it has the keyboard.
func (r *Reader) SetFocus(focused bool) { r.focused = focused }

// contentHeight is the number of lines under the summary, the tab bar
// and its rule, and above the search line.
func (r *Reader) contentHeight() int {
	m, _ := r.Email()
	return max(r.height-2-r.sum.height(m, r.width-2)-2-r.finder.find.lines(), 1)
}

// Open shows email id of inbox address ("": none).
func (r *Reader) Open(address, id string) {
	if r.address == address && r.id == id {
		return
	}
	r.address, r.id = address, id
	r.rendered.address = address
	r.choice = 0
	r.scroll.ScrollTo(0)
	r.source.reset(id)
	r.finder.find.reset()
	r.scroll.SetHeight(r.contentHeight())
}

// Clear shows no email.
func (r *Reader) Clear() { r.Open("", "") }

// Showing reports whether the reader shows email id of address.
func (r *Reader) Showing(address, id string) bool { return r.address == address && r.id == id }

// Shown is the inbox and the id of the open email ("" when none).
func (r *Reader) Shown() (address, id string) { return r.address, r.id }

// SetTab switches tabs.
func (r *Reader) SetTab(t Tab) {
	if t != r.bar.tab && int(t) < len(r.bar.tabs) {
		r.bar.tab = t
		r.choice = 0
		r.scroll.ScrollTo(0)
	}
}

// Email is the open email, as the host holds it.
func (r *Reader) Email() (model.Email, bool) {
	if r.id == "" {
		return model.Email{}, false
	}
	return r.host.Email(r.address, r.id)
}

// LoadRaw fetches the raw source when the Raw or the Headers tab shows an
// email whose source is not loaded.
func (r *Reader) LoadRaw() tea.Cmd {
	if (r.bar.tab != TabRaw && r.bar.tab != TabHeaders) || r.id == "" || !r.source.needed() {
		return nil
	}
	r.source.loading = true
	return r.host.LoadRaw(r.address, r.id)
}

// SetRaw hands the reader the raw source of email id of address, or why
// it could not be fetched; the source of another email is dropped.
func (r *Reader) SetRaw(address, id string, raw []byte, err error) {
	if r.Showing(address, id) {
		r.source.set(raw, err)
	}
}

// HandleKey scrolls the content (or moves the choice of a list tab) and
// acts on the open email.
func (r *Reader) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if r.finder.find.typing {
		r.finder.findKey(msg)
		return nil, true
	}
	k := r.ctx.Keys
	open, found := r.Email()
	switch {
	case key.Matches(msg, k.Up):
		r.move(open, found, -1)
	case key.Matches(msg, k.Down):
		r.move(open, found, 1)
	case key.Matches(msg, k.PageUp):
		r.move(open, found, -r.contentHeight())
	case key.Matches(msg, k.PageDown):
		r.move(open, found, r.contentHeight())
	case key.Matches(msg, k.Top):
		r.move(open, found, -1<<30)
	case key.Matches(msg, k.Bottom):
		r.move(open, found, 1<<30)
	case key.Matches(msg, k.Copy) && r.bar.tab == TabLinks && found && r.choice < len(r.html.links(open)):
		link := r.html.links(open)[r.choice]
		return r.host.Copy(link, "link "+link), true
	case key.Matches(msg, k.RenderWidth, k.RenderDark):
		// The Rendered tab in its new width or scheme, from its top.
		r.rendered.switchMode(key.Matches(msg, k.RenderWidth))
		r.SetTab(TabRendered)
		r.scroll.ScrollTo(0)
		return r.LoadRendered(), true
	case key.Matches(msg, k.CheckLinks) && r.bar.tab == TabLinks && found:
		return r.checks.toggle(r.ctx, r.calls, open, r.html.links(open), r.set.Remote == nil), true
	default:
		if cmd, ok := r.readerKey(msg); ok {
			return cmd, true
		}
		return r.HandleEmailKey(msg)
	}
	return nil, true
}

// HandleEmailKey handles the keys that act on the open email from the
// email list too: open a link or an attachment, save, switch HTML, open
// the HTML in the browser.
func (r *Reader) HandleEmailKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := r.ctx.Keys
	open, found := r.Email()
	switch {
	case key.Matches(msg, k.ToggleHTML):
		r.body.showHTML = !r.body.showHTML
		r.SetTab(TabBody)
		mode := "text part"
		if r.body.showHTML {
			mode = "HTML part (converted to text)"
		}
		r.ctx.Flash("showing the "+mode, ui.LevelInfo)
	case !key.Matches(msg, k.OpenLink, k.Save, k.ViewHTML, k.CopyCode):
		return nil, false
	case !found:
		r.ctx.Flash(fmt.Sprintf("open a message first (%s)", ui.KeyName(k.Open)), ui.LevelWarn)
	case key.Matches(msg, k.OpenLink):
		return r.openChoice(open), true
	case key.Matches(msg, k.CopyCode):
		return copyCode(r.ctx, r.host, open), true
	case key.Matches(msg, k.ViewHTML):
		if open.HTML == "" {
			r.ctx.Flash("this email has no HTML part", ui.LevelWarn)
			return nil, true
		}
		if remote := r.set.Remote; remote != nil {
			return remote.RunThere(r.ctx, "download it and open it in a browser", remote.FetchEmail(r.address, open.ID)), true
		}
		return r.host.OpenHTML(open), true
	default:
		return r.promptSave(open), true
	}
	return nil, true
}

// openChoice opens the chosen attachment or link, or shows the links.
func (r *Reader) openChoice(open model.Email) tea.Cmd {
	k := r.ctx.Keys
	links := r.html.links(open)
	switch {
	case r.bar.tab == TabAttachments && r.choice < len(open.Attachments):
		if remote := r.set.Remote; remote != nil {
			return remote.RunThere(r.ctx, "download it and open it", remote.FetchAttachment(r.address, open.ID, open.Attachments, r.choice))
		}
		return r.host.OpenAttachment(open.Attachments[r.choice], ui.KeyName(k.Save))
	case r.bar.tab == TabLinks && r.choice < len(links):
		if remote := r.set.Remote; remote != nil {
			return remote.CopyLinkThere(links[r.choice])
		}
		return r.host.OpenLink(links[r.choice], ui.KeyName(k.Copy))
	case len(links) > 0:
		r.SetTab(TabLinks)
		r.ctx.Flash(fmt.Sprintf("choose a link with %s and %s, then %s", ui.KeyName(k.Up), ui.KeyName(k.Down), ui.KeyName(k.OpenLink)), ui.LevelInfo)
	default:
		r.ctx.Flash("this email has no links", ui.LevelWarn)
	}
	return nil
}

// promptSave asks where to save the chosen attachment, or the email as
// .eml.
func (r *Reader) promptSave(open model.Email) tea.Cmd {
	if r.bar.tab == TabAttachments && r.choice < len(open.Attachments) {
		if remote := r.set.Remote; remote != nil {
			return remote.RunThere(r.ctx, "download it", remote.FetchAttachment(r.address, open.ID, open.Attachments, r.choice))
		}
		return r.host.SaveAttachment(open.Attachments[r.choice])
	}
	return r.host.SaveEmail(r.address, open)
}

// move scrolls the content by delta lines, or moves the choice of a list
// tab by delta rows and scrolls it into view.
func (r *Reader) move(m model.Email, found bool, delta int) {
	r.refresh(m, found)
	lt, ok := r.bar.tabs[r.bar.tab].(listTab)
	if !ok || m.Problem != "" || !m.HasContent {
		r.scroll.ScrollBy(delta)
		return
	}
	r.choice = ui.Clamp(r.choice+delta, 0, lt.count(m)-1)
	r.refresh(m, true)
	r.scroll.Reveal(r.chosen[0], r.chosen[1])
}

// Wheel scrolls the content by a turn of the wheel.
func (r *Reader) Wheel(lines int) {
	r.refresh(r.Email())
	r.scroll.ScrollBy(lines)
}

// refresh lays the current tab out again when what it depends on changed.
func (r *Reader) refresh(m model.Email, found bool) {
	if !found {
		m = model.Email{}
	}
	k := contentKey{
		id: m.ID, hasContent: m.HasContent, problem: m.Problem, links: len(m.Links), atts: len(m.Attachments),
		tab: r.bar.tab, width: r.width - 2, choice: r.choice, html: r.body.showHTML, source: r.source.version, checks: r.checks.version,
		dark: r.ctx.Theme.Dark, plain: r.ctx.Theme.NoColor, renders: r.rendered.version, graphics: r.ctx.Graphics,
	}
	if k == r.drawn {
		return
	}
	r.drawn = k
	c := r.content(m, k.width)
	r.chosen = [2]int{c.top, c.bottom}
	r.scroll.SetLines(c.lines)
}

// content lays out the current tab.
func (r *Reader) content(m model.Email, width int) tabContent {
	st := r.ctx.Styles()
	switch {
	case m.Problem != "":
		return textContent(ui.WrapStyled(st.Problem.Render, "⚠ This email could not be opened: "+m.Problem+".", width),
			ui.WrapStyled(st.Muted.Render, "It may not come from the server this inbox was created on, or it was tampered with. Its content is not shown.", width))
	case !m.HasContent && r.bar.tab != TabRaw && r.bar.tab != TabHeaders:
		return textContent([]string{st.Muted.Render("Loading the message content…")})
	}
	return r.bar.tabs[r.bar.tab].lines(m, width, r.choice)
}

// View draws the pane.
func (r *Reader) View() string {
	st := r.ctx.Styles()
	inner := r.width - 2
	title := "Message"
	m, found := r.Email()
	if !found {
		body := []string{st.Muted.Render(fmt.Sprintf("Select a message and press %s to open it.", ui.KeyName(r.ctx.Keys.Open)))}
		return ui.Frame(r.ctx, title, r.focused, r.width, r.height, body)
	}
	r.scroll.SetHeight(r.contentHeight()) // the summary's height follows the email
	r.refresh(m, true)
	head := append(r.sum.head(m, inner), r.bar.tabLine(m, inner), st.Muted.Render(strings.Repeat("─", inner)))
	if p := r.scroll.Percent(); p >= 0 {
		title = fmt.Sprintf("Message %d%%", p)
	}
	body := append(head, r.finder.markFound(r.scroll.Visible(), r.scroll.Offset())...)
	if r.finder.find.active() {
		body = append(body, r.finder.findLine(inner))
	}
	return ui.Frame(r.ctx, title, r.focused, r.width, r.height, body)
}

// ShortHelp lists the keys of the pane and of the tab shown; the
// search's while it is typed.
func (r *Reader) ShortHelp() []key.Binding {
	k := r.ctx.Keys
	if r.finder.find.typing {
		return []key.Binding{k.Open, k.Back}
	}
	if r.finder.find.text != "" {
		return []key.Binding{k.NextMatch, k.PrevMatch, k.Back, k.Down, k.Up, k.NextMessage, k.PrevMessage}
	}
	switch r.bar.tab {
	case TabLinks:
		return []key.Binding{k.Down, k.Up, k.OpenLink, k.Copy, k.CheckLinks, k.NextMessage, k.PrevMessage, k.Back}
	case TabAttachments:
		return []key.Binding{k.Down, k.Up, k.Save, k.SaveAll, k.OpenLink, k.NextMessage, k.PrevMessage, k.Back}
	case TabRaw, TabHeaders:
		return []key.Binding{k.Down, k.Up, k.Search, k.Pipe, k.Save, k.NextMessage, k.PrevMessage, k.Back}
	case TabRendered:
		return []key.Binding{k.Down, k.Up, k.RenderWidth, k.RenderDark, k.ViewHTML, k.NextMessage, k.PrevMessage, k.Back}
	}
	return []key.Binding{k.Down, k.HalfPageDown, k.Search, k.NextMessage, k.PrevMessage, k.ToggleHTML, k.OpenLink, k.Pipe, k.Delete, k.Back}
}

// FullHelp lists the pane's keys in columns.
func (r *Reader) FullHelp() [][]key.Binding {
	k := r.ctx.Keys
	return [][]key.Binding{k.ListKeyMap.ShortHelp(), k.Tabs(), {k.Back, k.NextMessage, k.PrevMessage, k.Search, k.NextMatch, k.PrevMatch,
		k.OpenLink, k.Save, k.SaveAll, k.ToggleHTML, k.ViewHTML, k.RenderWidth, k.RenderDark, k.Pipe, k.Mark, k.Delete, k.MarkUnread, k.Copy}}
}
