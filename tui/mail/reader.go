package mail

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"sandview/internal/desktop"
	"sandview/model"
	"sandview/tui/ui"
)

// headerHeight is the number of body lines above the tab content.
const headerHeight = 6

// reader is the pane showing the open email: its headers, then one of its
// tabs (readerTab) scrolled in a viewport.
type reader struct {
	ctx     *ui.Context
	store   *store
	cmds    commands
	acts    *actions
	address string // inbox of the open email
	id      string // open email ("" = none)
	tab     tab
	choice  int // selected row of a list tab
	tabs    [tabCount]readerTab
	body    *bodyTab
	raw     *rawTab
	view    viewport.Model
	drawn   contentKey // what the viewport holds
	width   int
	height  int
	focused bool
}

// contentKey is everything the tab content depends on: the viewport is
// refilled only when it changes.
type contentKey struct {
	id          string
	hasContent  bool
	problem     string
	links, atts int
	tab         tab
	width       int
	choice      int
	html        bool
	raw         int
	dark, plain bool
}

func newReader(ctx *ui.Context, st *store, cmds commands, acts *actions) *reader {
	r := &reader{ctx: ctx, store: st, cmds: cmds, acts: acts, body: &bodyTab{ctx: ctx}, raw: &rawTab{ctx: ctx}, view: viewport.New()}
	r.tabs = [tabCount]readerTab{r.body, headersTab{ctx}, linksTab{ctx}, attachmentsTab{ctx}, r.raw, authTab{ctx}}
	return r
}

// SetSize sets the outer size of the pane.
func (r *reader) SetSize(width, height int) {
	r.width, r.height = width, height
	r.view.SetWidth(max(width-2, 1))
	r.view.SetHeight(r.contentHeight())
}

// SetFocus tells the pane whether it has the keyboard.
func (r *reader) SetFocus(focused bool) { r.focused = focused }

func (r *reader) contentHeight() int { return max(r.height-2-headerHeight, 1) }

// open shows another email.
func (r *reader) open(address, id string) {
	if r.address == address && r.id == id {
		return
	}
	r.address, r.id = address, id
	r.choice = 0
	r.view.SetYOffset(0)
	r.raw.reset()
}

// close shows no email.
func (r *reader) close() { r.open("", "") }

// showing reports whether the reader shows email id of address.
func (r *reader) showing(address, id string) bool { return r.address == address && r.id == id }

// setTab switches tabs.
func (r *reader) setTab(t tab) {
	if t != r.tab {
		r.tab = t
		r.choice = 0
		r.view.SetYOffset(0)
	}
}

// entry is the inbox of the open email.
func (r *reader) entry() *inboxEntry {
	e, _ := r.store.find(r.address)
	return e
}

// email returns the open email.
func (r *reader) email() (model.Email, bool) {
	if r.id == "" {
		return model.Email{}, false
	}
	if e := r.entry(); e != nil {
		return e.email(r.id)
	}
	return model.Email{}, false
}

// loadRaw fetches the raw source when the Raw tab shows an email whose
// source is not loaded.
func (r *reader) loadRaw() tea.Cmd {
	if r.tab != tabRaw || r.id == "" || !r.raw.needed() {
		return nil
	}
	r.raw.loading = true
	return r.cmds.loadRaw(r.address, r.id)
}

// HandleKey scrolls the content (or moves the choice of a list tab) and
// acts on the open email.
func (r *reader) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := r.ctx.Keys
	open, found := r.email()
	r.refresh(open, found)
	switch {
	case key.Matches(msg, k.Up):
		r.scroll(open, -1)
	case key.Matches(msg, k.Down):
		r.scroll(open, 1)
	case key.Matches(msg, k.PageUp):
		r.scroll(open, -r.contentHeight())
	case key.Matches(msg, k.PageDown):
		r.scroll(open, r.contentHeight())
	case key.Matches(msg, k.Top):
		r.choice = 0
		r.view.GotoTop()
	case key.Matches(msg, k.Bottom):
		r.scroll(open, 1<<20)
	case key.Matches(msg, k.Delete):
		if found {
			r.acts.confirmDeleteEmail(r.entry(), open.ID)
		}
	case key.Matches(msg, k.MarkUnread):
		if found {
			return r.acts.toggleRead(r.entry(), open.ID), true
		}
	case key.Matches(msg, k.Copy) && r.tab == tabLinks && found && r.choice < len(open.Links):
		link := open.Links[r.choice]
		r.ctx.Flash("copied link "+link+" (OSC 52)", ui.LevelSuccess)
		return tea.SetClipboard(link), true
	default:
		if cmd, ok := r.acts.inboxKey(msg); ok {
			return cmd, true
		}
		return r.HandleEmailKey(msg)
	}
	return nil, true
}

// HandleEmailKey handles the keys that act on the open email from the
// email list too: open a link or an attachment, save, switch HTML.
func (r *reader) HandleEmailKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := r.ctx.Keys
	open, found := r.email()
	switch {
	case key.Matches(msg, k.ToggleHTML):
		r.body.html = !r.body.html
		r.setTab(tabBody)
		mode := "text part"
		if r.body.html {
			mode = "HTML part (converted to text)"
		}
		r.ctx.Flash("showing the "+mode, ui.LevelInfo)
	case !key.Matches(msg, k.OpenLink, k.Save):
		return nil, false
	case !found:
		r.ctx.Flash(fmt.Sprintf("open a message first (%s)", ui.KeyName(k.Open)), ui.LevelWarn)
	case key.Matches(msg, k.OpenLink):
		return r.openChoice(open), true
	default:
		r.promptSave(open)
	}
	return nil, true
}

// openChoice opens the chosen attachment or link, or shows the links.
func (r *reader) openChoice(open model.Email) tea.Cmd {
	k := r.ctx.Keys
	switch {
	case r.tab == tabAttachments && r.choice < len(open.Attachments):
		return r.cmds.openAttachment(open.Attachments[r.choice])
	case r.tab == tabLinks && r.choice < len(open.Links):
		return r.cmds.openLink(open.Links[r.choice])
	case len(open.Links) > 0:
		r.setTab(tabLinks)
		r.ctx.Flash(fmt.Sprintf("choose a link with %s and %s, then %s", ui.KeyName(k.Up), ui.KeyName(k.Down), ui.KeyName(k.OpenLink)), ui.LevelInfo)
	default:
		r.ctx.Flash("this email has no links", ui.LevelWarn)
	}
	return nil
}

// promptSave asks where to save the chosen attachment, or the email as
// .eml.
func (r *reader) promptSave(open model.Email) {
	if r.tab == tabAttachments && r.choice < len(open.Attachments) {
		a := open.Attachments[r.choice]
		r.ctx.Open(ui.NewPrompt(r.ctx, "Save attachment", "Directory to save "+desktop.SafeName(a.Filename, "attachment")+" in (an existing file is never overwritten).",
			defaultSaveDir(), func(dir string) tea.Cmd { return r.cmds.saveAttachment(a, dir) }))
		return
	}
	address, id, subject := r.address, open.ID, open.Subject
	r.ctx.Open(ui.NewPrompt(r.ctx, "Save as .eml", "Directory to save the raw source (RFC 5322) in (an existing file is never overwritten).",
		defaultSaveDir(), func(dir string) tea.Cmd { return r.cmds.saveRaw(address, id, subject, dir) }))
}

// scroll moves the content by delta lines, or the choice of a list tab.
func (r *reader) scroll(m model.Email, delta int) {
	lt, ok := r.tabs[r.tab].(listTab)
	if !ok || m.Problem != "" || !m.HasContent {
		r.view.SetYOffset(r.view.YOffset() + delta)
		return
	}
	r.choice = ui.Clamp(r.choice+delta, 0, lt.count(m)-1)
	r.refresh(m, true)
	// Keep the choice in view, scrolling no more than needed.
	off, h := r.view.YOffset(), r.contentHeight()
	off = ui.Clamp(off, r.choice-h+1, r.choice)
	r.view.SetYOffset(off)
}

// wheel scrolls the content by a turn of the wheel.
func (r *reader) wheel(lines int) {
	open, found := r.email()
	r.refresh(open, found)
	r.view.SetYOffset(r.view.YOffset() + lines)
}

// refresh fills the viewport with the current tab's lines when what they
// depend on changed.
func (r *reader) refresh(m model.Email, found bool) {
	if !found {
		m = model.Email{}
	}
	k := contentKey{
		id: m.ID, hasContent: m.HasContent, problem: m.Problem, links: len(m.Links), atts: len(m.Attachments),
		tab: r.tab, width: r.width - 2, choice: r.choice, html: r.body.html, raw: r.raw.version,
		dark: r.ctx.Theme.Dark, plain: r.ctx.Theme.NoColor,
	}
	if k == r.drawn && r.view.TotalLineCount() > 0 {
		return
	}
	r.drawn = k
	r.view.SetContentLines(ui.FitLines(r.content(m, k.width), k.width))
}

// content renders the lines of the current tab.
func (r *reader) content(m model.Email, width int) []string {
	st := r.ctx.Styles()
	if m.Problem != "" {
		return []string{
			st.Problem.Render("⚠ This email could not be opened: " + m.Problem + "."),
			st.Muted.Render("It may not come from the server this inbox was created on, or it was"),
			st.Muted.Render("tampered with. Its content is not shown."),
		}
	}
	if !m.HasContent && r.tab != tabRaw {
		return []string{st.Muted.Render("Loading the message content…")}
	}
	return r.tabs[r.tab].lines(m, width, r.choice)
}

// View draws the pane.
func (r *reader) View() string {
	st := r.ctx.Styles()
	inner := r.width - 2
	title := "Message"
	m, found := r.email()
	if !found {
		body := []string{st.Muted.Render(fmt.Sprintf("Select a message and press %s to open it.", ui.KeyName(r.ctx.Keys.Open)))}
		return ui.Frame(r.ctx, title, r.focused, r.width, r.height, body)
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
		now := r.ctx.Now
		age := ui.RelativeTime(m.ReceivedAt, now)
		if age == "now" {
			age = "just now"
		} else if !strings.Contains(age, " ") && len(age) <= 4 {
			age += " ago"
		}
		date = m.ReceivedAt.In(now.Location()).Format("2006-01-02 15:04:05") + " (" + age + ")"
	}
	head := []string{label("From", m.From), label("To", strings.Join(m.To, ", ")), label("Subject", subject), label("Date", date)}
	if m.Problem != "" {
		head[3] = st.Problem.Render(ui.Fit(" ⚠ CANNOT OPEN THIS EMAIL: "+m.Problem+" — content not shown", inner))
	}
	head = append(head, r.tabLine(m, inner), st.Muted.Render(strings.Repeat("─", inner)))
	r.refresh(m, true)
	body := append(head, strings.Split(r.view.View(), "\n")...)
	if n, h := r.view.TotalLineCount(), r.contentHeight(); n > h {
		title = fmt.Sprintf("Message %d%%", min(100, (r.view.YOffset()+h)*100/n))
	}
	return ui.Frame(r.ctx, title, r.focused, r.width, r.height, body)
}

// tabLine renders the tab bar, with short names when the full ones do not
// fit.
func (r *reader) tabLine(m model.Email, width int) string {
	st := r.ctx.Styles()
	tabKeys := r.ctx.Keys.Tabs()
	labels := func(short bool) []string {
		out := make([]string, tabCount)
		for t := range tabCount {
			out[t] = fmt.Sprintf(" %s %s ", ui.KeyName(tabKeys[t]), r.tabs[t].label(m, short))
		}
		return out
	}
	list := labels(false)
	if ansi.StringWidth(strings.Join(list, "")) > width {
		list = labels(true)
	}
	var sb strings.Builder
	for t, label := range list {
		if tab(t) == r.tab {
			sb.WriteString(st.TabActive.Render(label))
		} else {
			sb.WriteString(st.TabInactive.Render(label))
		}
	}
	return sb.String()
}

// ShortHelp lists the pane's keys.
func (r *reader) ShortHelp() []key.Binding {
	k := r.ctx.Keys
	return []key.Binding{k.Up, k.Down, k.Back, k.OpenLink, k.Save, k.ToggleHTML, k.Delete}
}

// FullHelp lists the pane's keys in columns.
func (r *reader) FullHelp() [][]key.Binding {
	k := r.ctx.Keys
	return [][]key.Binding{k.ListKeyMap.ShortHelp(), k.Tabs(), {k.Back, k.OpenLink, k.Save, k.ToggleHTML, k.Delete, k.MarkUnread, k.Copy}}
}
