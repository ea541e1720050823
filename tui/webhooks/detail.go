package webhooks

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"sandview/keys"
	"sandview/model"
	"sandview/model/termtext"
	"sandview/theme"
	"sandview/tui/ui"
)

// detail is the pane showing the selected webhook: every field, the
// secret masked (revealed on demand), stats, and the answers to test and
// rotate, scrolled in a viewport.
type detail struct {
	ctx     *ui.Context
	keys    keys.WebhookKeyMap
	state   *hookState
	list    *hookList // whose selected webhook is shown
	view    viewport.Model
	shown   string // id of the webhook in the viewport
	width   int
	height  int
	focused bool
}

// SetSize sets the outer size of the pane.
func (p *detail) SetSize(width, height int) {
	p.width, p.height = width, height
	p.view.SetWidth(max(width-2, 1))
	p.view.SetHeight(max(height-2, 1))
}

// SetFocus tells the pane whether it has the keyboard.
func (p *detail) SetFocus(focused bool) { p.focused = focused }

// refresh fills the viewport with the selected webhook's lines; it starts
// at the top when another webhook is selected.
func (p *detail) refresh() (model.Webhook, bool) {
	h, found := p.list.selected()
	var lines []string
	if found {
		lines = ui.FitLines(p.lines(h), max(p.width-2, 1))
	}
	if h.ID != p.shown {
		p.shown = h.ID
		p.view.SetYOffset(0)
	}
	p.view.SetContentLines(lines)
	return h, found
}

// HandleKey scrolls the details.
func (p *detail) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := p.keys
	p.refresh()
	switch {
	case key.Matches(msg, k.Up):
		p.scroll(-1)
	case key.Matches(msg, k.Down):
		p.scroll(1)
	case key.Matches(msg, k.PageUp):
		p.scroll(-p.view.Height())
	case key.Matches(msg, k.PageDown):
		p.scroll(p.view.Height())
	case key.Matches(msg, k.Top):
		p.view.GotoTop()
	case key.Matches(msg, k.Bottom):
		p.view.GotoBottom()
	default:
		return nil, false
	}
	return nil, true
}

// scroll moves the view by delta lines.
func (p *detail) scroll(delta int) { p.view.SetYOffset(p.view.YOffset() + delta) }

// wheel scrolls by a turn of the wheel.
func (p *detail) wheel(lines int) {
	p.refresh()
	p.scroll(lines)
}

// showSection scrolls to the section whose heading starts with title.
func (p *detail) showSection(title string) {
	h, found := p.refresh()
	if !found {
		return
	}
	for i, l := range p.lines(h) {
		if strings.Contains(ansi.Strip(l), "── "+title) {
			p.view.SetYOffset(i)
			return
		}
	}
}

// View draws the pane.
func (p *detail) View() string {
	st := p.ctx.Styles()
	h, found := p.refresh()
	if !found {
		return ui.Frame(p.ctx, "Webhook", p.focused, p.width, p.height, []string{st.Muted.Render("Select a webhook to see its details.")})
	}
	return ui.Frame(p.ctx, "Webhook "+h.ID, p.focused, p.width, p.height, strings.Split(p.view.View(), "\n"))
}

// ShortHelp lists the pane's keys.
func (p *detail) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Reveal, k.Back}
}

// FullHelp lists the pane's keys in columns.
func (p *detail) FullHelp() [][]key.Binding {
	return [][]key.Binding{p.keys.ListKeyMap.ShortHelp(), {p.keys.Reveal, p.keys.Back}}
}

// lines renders everything known of h, wrapped to the pane.
func (p *detail) lines(h model.Webhook) []string {
	st := p.ctx.Styles()
	width := max(p.width-2, 10)
	now := p.ctx.Now
	var out []string
	valueW := max(width-13, 8)
	row := func(name string, value string, style func(...string) string) {
		for i, l := range ui.Wrap(value, valueW) {
			label := strings.Repeat(" ", 13)
			if i == 0 {
				label = st.Label.Render(fmt.Sprintf("%-12s ", name))
			}
			out = append(out, label+style(l))
		}
	}
	row("URL", h.URL, st.Link.Render)
	scope := model.ScopeGlobal + " (every inbox of the API key)"
	if h.Scope == model.ScopeInbox {
		scope = "inbox " + h.InboxEmail
	}
	row("Scope", scope, st.Value.Render)
	if h.Enabled {
		out = append(out, st.Label.Render(fmt.Sprintf("%-12s ", "State"))+st.HookEnabled.Render("● enabled"))
	} else {
		out = append(out, st.Label.Render(fmt.Sprintf("%-12s ", "State"))+st.HookDisabled.Render("○ disabled")+st.Muted.Render(fmt.Sprintf(" (%s enables)", ui.KeyName(p.keys.Toggle))))
	}
	row("Events", strings.Join(h.Events, ", "), st.Value.Render)
	p.templateRows(h, row)
	p.secretRow(h, &out)
	p.filterRows(h, row)
	if h.Description != "" {
		row("Description", h.Description, st.Value.Render)
	}
	created := timeAndAge(h.CreatedAt, now)
	if h.UpdatedAt != nil {
		created += " · updated " + timeAndAge(*h.UpdatedAt, now)
	}
	row("Created", created, st.Muted.Render)
	last := lastDelivery(h, now)
	out = append(out, st.Label.Render(fmt.Sprintf("%-12s ", "Last"))+last.render(st))
	switch {
	case h.Stats != nil:
		s := h.Stats
		row("Stats", fmt.Sprintf("%s · %d ok · %d failed", ui.Plural(s.TotalDeliveries, "delivery", "deliveries"), s.SuccessfulDeliveries, s.FailedDeliveries), st.Value.Render)
	case p.state.fullErr[h.ID] != "":
		row("Stats", "unavailable: "+p.state.fullErr[h.ID], st.FieldError.Render)
	default:
		row("Stats", "loading…", st.Muted.Render)
	}
	out = append(out, p.testLines(h, width)...)
	out = append(out, p.rotationLines(h, width)...)
	return out
}

func (p *detail) templateRows(h model.Webhook, row func(string, string, func(...string) string)) {
	st := p.ctx.Styles()
	name := templateName(h.Template)
	if name != model.TemplateCustom {
		row("Template", name, st.Value.Render)
		return
	}
	ct := h.Template.ContentType
	if ct == "" {
		ct = "application/json"
	}
	row("Template", "custom ("+ct+")", st.Value.Render)
	row("", h.Template.Body, st.Code.Render)
}

// secretRow shows the secret masked unless revealed.
func (p *detail) secretRow(h model.Webhook, out *[]string) {
	st := p.ctx.Styles()
	label := st.Label.Render(fmt.Sprintf("%-12s ", "Secret"))
	switch {
	case h.Secret == "" && p.state.fullErr[h.ID] != "":
		*out = append(*out, label+st.Muted.Render("unavailable"))
	case h.Secret == "":
		*out = append(*out, label+st.Muted.Render("loading…"))
	case p.state.revealed:
		*out = append(*out, label+st.Secret.Render(h.Secret)+st.Muted.Render(fmt.Sprintf(" (%s hides)", ui.KeyName(p.keys.Reveal))))
	default:
		*out = append(*out, label+st.Secret.Render(maskSecret(h.Secret))+st.Muted.Render(fmt.Sprintf(" (%s shows)", ui.KeyName(p.keys.Reveal))))
	}
}

// maskSecret keeps the prefix of a secret and hides the rest.
func maskSecret(s string) string {
	prefix, _, found := strings.Cut(s, "_")
	if !found {
		return "••••••••••••"
	}
	return prefix + "_••••••••••••"
}

func (p *detail) filterRows(h model.Webhook, row func(string, string, func(...string) string)) {
	st := p.ctx.Styles()
	if h.Filter == nil {
		row("Filter", "none: fires for every email", st.Muted.Render)
		return
	}
	f := h.Filter
	head := "all rules must match"
	if f.Mode == model.FilterModeAny {
		head = "any rule may match"
	}
	if len(f.Rules) == 0 {
		head = "no rules"
	}
	if f.RequireAuth != nil && *f.RequireAuth {
		head += "; only emails passing authentication"
	}
	row("Filter", head, st.Value.Render)
	for i, r := range f.Rules {
		text := fmt.Sprintf("%d. %s %s %q", i+1, r.Field, r.Operator, r.Value)
		if r.Operator == model.OpExists {
			text = fmt.Sprintf("%d. %s exists", i+1, r.Field)
		}
		if r.CaseSensitive {
			text += " (exact case)"
		}
		row("", text, st.Value.Render)
	}
}

// sectionTitle is a heading line across the pane.
func sectionTitle(st *theme.Styles, title string, width int) string {
	head := "── " + title + " "
	return st.AuthHeading.Render(head) + st.Pane.Render(strings.Repeat("─", max(width-termtext.Width(head), 0)))
}

func (p *detail) testLines(h model.Webhook, width int) []string {
	t, ok := p.state.tests[h.ID]
	if !ok {
		return nil
	}
	st := p.ctx.Styles()
	out := []string{"", sectionTitle(st, "Test "+t.at.Format("15:04:05"), width)}
	if t.err != "" {
		return append(out, ui.WrapStyled(st.FieldError.Render, "✗ "+t.err, width)...)
	}
	r := t.res
	verdict := st.AuthPass.Render("✓ delivered")
	if !r.Success {
		verdict = st.AuthFail.Render("✗ failed")
	}
	status := "no HTTP status"
	if r.StatusCode > 0 {
		status = fmt.Sprintf("HTTP %d", r.StatusCode)
	}
	out = append(out, verdict+st.Value.Render(fmt.Sprintf(" · %s · %d ms", status, r.ResponseTime)))
	if r.Error != "" {
		out = append(out, ui.WrapStyled(st.FieldError.Render, r.Error, width)...)
	}
	out = append(out, st.Label.Render("Response body"))
	if r.ResponseBody == "" {
		out = append(out, st.Muted.Render("(empty)"))
	} else {
		out = append(out, ui.WrapStyled(st.Code.Render, r.ResponseBody, width)...)
	}
	out = append(out, st.Label.Render("Payload sent"))
	if t.payload.empty() {
		return append(out, st.Muted.Render("(not reported)"))
	}
	return append(out, t.payload.lines(p.ctx.Theme, width)...)
}

func (p *detail) rotationLines(h model.Webhook, width int) []string {
	r, ok := p.state.rotations[h.ID]
	if !ok {
		return nil
	}
	st := p.ctx.Styles()
	out := []string{"", sectionTitle(st, "Secret rotated "+r.at.Format("15:04:05"), width)}
	if r.err != "" {
		return append(out, ui.WrapStyled(st.FieldError.Render, "✗ "+r.err, width)...)
	}
	out = append(out, ui.WrapStyled(st.Value.Render, fmt.Sprintf("The new secret is above (%s shows it). Update your receiver.", ui.KeyName(p.keys.Reveal)), width)...)
	left := r.validUntil.Sub(p.ctx.Now)
	grace := "the previous secret has expired"
	if left > 0 {
		grace = "the previous secret stays valid until " + r.validUntil.UTC().Format("2006-01-02 15:04:05 UTC") + " (" + ui.Countdown(left) + " left)"
	}
	return append(out, ui.WrapStyled(st.AuthWarn.Render, grace, width)...)
}

// lastDeliveryState is the last delivery of a webhook in words.
type lastDeliveryState struct {
	text   string
	status string
}

func lastDelivery(h model.Webhook, now time.Time) lastDeliveryState {
	if h.LastDeliveryAt == nil && h.LastDeliveryStatus == "" {
		return lastDeliveryState{text: "no deliveries yet"}
	}
	s := lastDeliveryState{status: h.LastDeliveryStatus}
	switch h.LastDeliveryStatus {
	case "success":
		s.text = "✓ success"
	case "failed":
		s.text = "✗ failed"
	default:
		s.text = "~ " + h.LastDeliveryStatus
	}
	if h.LastDeliveryAt != nil {
		s.text += " " + agoText(*h.LastDeliveryAt, now)
	}
	return s
}

func (s lastDeliveryState) render(st *theme.Styles) string {
	switch s.status {
	case "success":
		return st.AuthPass.Render(s.text)
	case "failed":
		return st.AuthFail.Render(s.text)
	}
	return st.Muted.Render(s.text)
}

// agoText is "just now", "5m ago" or a date.
func agoText(t, now time.Time) string {
	r := ui.RelativeTime(t, now)
	switch {
	case r == "now":
		return "just now"
	case strings.ContainsAny(r, " -"):
		return "on " + r
	}
	return r + " ago"
}

// timeAndAge is a UTC time and its age.
func timeAndAge(t, now time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC") + " (" + agoText(t, now) + ")"
}
