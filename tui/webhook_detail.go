package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"sandview/model"
	"sandview/theme"
)

// webhookDetail shows the selected webhook: every field, the secret masked
// (revealed on demand), stats, and the answers to test and rotate.
type webhookDetail struct {
	sh     *shared
	data   *webhookData
	offset int
	width  int
	height int
}

// SetSize sets the outer size of the pane.
func (p *webhookDetail) SetSize(width, height int) { p.width, p.height = width, height }

func (p *webhookDetail) contentHeight() int { return max(p.height-2, 1) }

// scroll moves the view by delta lines within the lines of h.
func (p *webhookDetail) scroll(h model.Webhook, found bool, delta int) {
	n := 0
	if found {
		n = len(p.lines(h))
	}
	p.offset = clampInt(p.offset+delta, 0, max(n-p.contentHeight(), 0))
}

// scrollToSection shows the section whose heading starts with title.
func (p *webhookDetail) scrollToSection(h model.Webhook, title string) {
	for i, l := range p.lines(h) {
		if strings.Contains(ansi.Strip(l), "── "+title) {
			p.offset = i
			p.scroll(h, true, 0)
			return
		}
	}
}

// View renders the pane for h (the selected webhook).
func (p *webhookDetail) View(h model.Webhook, found, focused bool) string {
	st := p.sh.styles()
	var body []string
	title := "Webhook"
	if !found {
		body = []string{st.Muted.Render("Select a webhook to see its details.")}
	} else {
		title = "Webhook " + h.ID
		body = window(p.lines(h), p.offset, p.contentHeight())
	}
	return frame(p.sh, title, focused, p.width, p.height, body)
}

// lines renders everything known of h, wrapped to the pane.
func (p *webhookDetail) lines(h model.Webhook) []string {
	st := p.sh.styles()
	width := max(p.width-2, 10)
	now := p.sh.now
	var out []string
	valueW := max(width-13, 8)
	row := func(name string, value string, style func(...string) string) {
		for i, l := range wrap(value, valueW) {
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
		out = append(out, st.Label.Render(fmt.Sprintf("%-12s ", "State"))+st.HookDisabled.Render("○ disabled")+st.Muted.Render(" (x enables)"))
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
	last := lastDelivery(h, p.sh)
	out = append(out, st.Label.Render(fmt.Sprintf("%-12s ", "Last"))+last.render(st))
	switch {
	case h.Stats != nil:
		s := h.Stats
		row("Stats", fmt.Sprintf("%d deliveries · %d ok · %d failed", s.TotalDeliveries, s.SuccessfulDeliveries, s.FailedDeliveries), st.Value.Render)
	case p.data.fullErr[h.ID] != "":
		row("Stats", "unavailable: "+p.data.fullErr[h.ID], st.FieldError.Render)
	default:
		row("Stats", "loading…", st.Muted.Render)
	}
	out = append(out, p.testLines(h, width)...)
	out = append(out, p.rotationLines(h, width)...)
	return out
}

func (p *webhookDetail) templateRows(h model.Webhook, row func(string, string, func(...string) string)) {
	st := p.sh.styles()
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
func (p *webhookDetail) secretRow(h model.Webhook, out *[]string) {
	st := p.sh.styles()
	label := st.Label.Render(fmt.Sprintf("%-12s ", "Secret"))
	switch {
	case h.Secret == "" && p.data.fullErr[h.ID] != "":
		*out = append(*out, label+st.Muted.Render("unavailable"))
	case h.Secret == "":
		*out = append(*out, label+st.Muted.Render("loading…"))
	case p.data.revealed:
		*out = append(*out, label+st.Secret.Render(h.Secret)+st.Muted.Render(" (s hides)"))
	default:
		*out = append(*out, label+st.Secret.Render(maskSecret(h.Secret))+st.Muted.Render(" (s shows)"))
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

func (p *webhookDetail) filterRows(h model.Webhook, row func(string, string, func(...string) string)) {
	st := p.sh.styles()
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
	return st.AuthHeading.Render(head) + st.Pane.Render(strings.Repeat("─", max(width-len([]rune(head)), 0)))
}

func (p *webhookDetail) testLines(h model.Webhook, width int) []string {
	t, ok := p.data.tests[h.ID]
	if !ok {
		return nil
	}
	st := p.sh.styles()
	out := []string{"", sectionTitle(st, "Test "+t.at.Format("15:04:05"), width)}
	if t.err != "" {
		return append(out, wrapStyled(st.FieldError.Render, "✗ "+t.err, width)...)
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
		out = append(out, wrapStyled(st.FieldError.Render, r.Error, width)...)
	}
	out = append(out, st.Label.Render("Response body"))
	if r.ResponseBody == "" {
		out = append(out, st.Muted.Render("(empty)"))
	} else {
		out = append(out, wrapStyled(st.Code.Render, r.ResponseBody, width)...)
	}
	out = append(out, st.Label.Render("Payload sent"))
	if t.payload.empty() {
		return append(out, st.Muted.Render("(not reported)"))
	}
	return append(out, t.payload.lines(p.sh, width)...)
}

func (p *webhookDetail) rotationLines(h model.Webhook, width int) []string {
	r, ok := p.data.rotations[h.ID]
	if !ok {
		return nil
	}
	st := p.sh.styles()
	out := []string{"", sectionTitle(st, "Secret rotated "+r.at.Format("15:04:05"), width)}
	if r.err != "" {
		return append(out, wrapStyled(st.FieldError.Render, "✗ "+r.err, width)...)
	}
	out = append(out, wrapStyled(st.Value.Render, "The new secret is above (s shows it). Update your receiver.", width)...)
	left := r.validUntil.Sub(p.sh.now)
	grace := "the previous secret has expired"
	if left > 0 {
		grace = "the previous secret stays valid until " + r.validUntil.UTC().Format("2006-01-02 15:04:05 UTC") + " (" + countdown(left) + " left)"
	}
	return append(out, wrapStyled(st.AuthWarn.Render, grace, width)...)
}

// lastDeliveryState is the last delivery of a webhook in words.
type lastDeliveryState struct {
	text   string
	status string
}

func lastDelivery(h model.Webhook, sh *shared) lastDeliveryState {
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
		s.text += " " + agoText(*h.LastDeliveryAt, sh.now)
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
	r := relativeTime(t, now)
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
