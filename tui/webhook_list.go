package tui

import (
	"fmt"
	"strings"

	"sandview/model"
)

// hookRowHeight is the number of lines one webhook takes in the list.
const hookRowHeight = 2

// webhookList is the pane listing the webhooks of every scope, under the
// metrics summary.
type webhookList struct {
	sh     *shared
	data   *webhookData
	cursor int
	offset int
	width  int
	height int
}

// SetSize sets the outer size of the pane.
func (l *webhookList) SetSize(width, height int) {
	l.width, l.height = width, height
	l.scrollToCursor()
}

// selected returns the webhook under the cursor (its full record when
// loaded).
func (l *webhookList) selected() (model.Webhook, bool) { return l.data.hook(l.cursor) }

// move moves the cursor and reports whether it changed.
func (l *webhookList) move(delta int) bool {
	old := l.cursor
	l.cursor = clampInt(l.cursor+delta, 0, len(l.data.hooks)-1)
	l.scrollToCursor()
	return l.cursor != old
}

// selectID moves the cursor to the webhook id.
func (l *webhookList) selectID(id string) {
	if i := l.data.index(id); i >= 0 {
		l.cursor = i
		l.scrollToCursor()
	}
}

func (l *webhookList) clamp() {
	l.cursor = clampInt(l.cursor, 0, len(l.data.hooks)-1)
	l.scrollToCursor()
}

// headerLines is the metrics summary above the rows.
func (l *webhookList) headerLines() []string {
	st := l.sh.styles()
	width := max(l.width-2, 1)
	d := l.data
	var text string
	switch {
	case d.metricsErr != "":
		text = "metrics unavailable: " + d.metricsErr
	case d.metrics != nil:
		mt := d.metrics
		text = fmt.Sprintf("%d webhooks: %d global · %d inbox · %d enabled │ deliveries %d: %d ok · %d failed",
			mt.Webhooks.Total, mt.Webhooks.Global, mt.Webhooks.Inbox, mt.Webhooks.Enabled,
			mt.Deliveries.Total, mt.Deliveries.Successful, mt.Deliveries.Failed)
	default:
		text = "loading metrics…"
	}
	out := wrapStyled(st.Muted.Render, text, width)
	if d.loadErr != "" {
		out = append(out, wrapStyled(st.FieldError.Render, "⚠ "+d.loadErr, width)...)
	}
	return append(out, st.Pane.Render(strings.Repeat("─", width)))
}

func (l *webhookList) visibleRows() int {
	return max((l.height-2-len(l.headerLines()))/hookRowHeight, 1)
}

func (l *webhookList) page() int { return l.visibleRows() }

func (l *webhookList) scrollToCursor() {
	rows := l.visibleRows()
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+rows {
		l.offset = l.cursor - rows + 1
	}
	l.offset = clampInt(l.offset, 0, len(l.data.hooks)-rows)
}

// rowAt maps a line inside the pane body to a webhook index (-1 if none).
func (l *webhookList) rowAt(bodyLine int) int {
	bodyLine -= len(l.headerLines())
	if bodyLine < 0 {
		return -1
	}
	i := l.offset + bodyLine/hookRowHeight
	if i >= len(l.data.hooks) {
		return -1
	}
	return i
}

// View renders the pane.
func (l *webhookList) View(focused bool) string {
	st := l.sh.styles()
	inner := l.width - 2
	body := l.headerLines()
	d := l.data
	switch {
	case len(d.hooks) == 0 && d.loading:
		body = append(body, st.Muted.Render("Loading webhooks…"))
	case len(d.hooks) == 0:
		body = append(body, st.Muted.Render("No webhooks yet."), st.Muted.Render("n creates one; l creates one pointing at"), st.Muted.Render("the built-in receiver, to watch deliveries."))
	}
	end := min(l.offset+l.visibleRows(), len(d.hooks))
	for i := l.offset; i < end; i++ {
		h, _ := d.hook(i)
		body = append(body, l.row(h, i == l.cursor, focused, inner)...)
	}
	title := fmt.Sprintf("Webhooks (%d)", len(d.hooks))
	return frame(l.sh, title, focused, l.width, l.height, body)
}

// row renders the two lines of one webhook.
func (l *webhookList) row(h model.Webhook, selected, focused bool, width int) []string {
	st := l.sh.styles()
	mark, markStyle := "●", st.HookEnabled
	if !h.Enabled {
		mark, markStyle = "○", st.HookDisabled
	}
	scope := model.ScopeGlobal
	if h.Scope == model.ScopeInbox {
		scope = h.InboxEmail
	}
	parts := []string{scope, eventsShort(h.Events), templateName(h.Template)}
	if _, ok := l.data.recvHooks[h.ID]; ok {
		parts = append(parts, "receiver")
	}
	last := lastDelivery(h, l.sh)
	line1 := " " + mark + " " + h.URL
	line2 := "   " + strings.Join(parts, " · ") + " · "
	if selected {
		style := st.SelectedBlurred
		if focused {
			style = st.Selected
		}
		return []string{style.Render(fit(line1, width)), style.Render(fit(line2+last.text, width))}
	}
	urlStyle := st.Normal
	if !h.Enabled {
		urlStyle = st.Muted
	}
	return []string{
		" " + markStyle.Render(mark) + " " + urlStyle.Render(h.URL),
		st.Muted.Render(line2) + last.render(st),
	}
}

// eventsShort names a webhook's events without the "email." prefix.
func eventsShort(events []string) string {
	if len(events) == 3 {
		return "all events"
	}
	if len(events) == 0 {
		return "no events"
	}
	short := make([]string, len(events))
	for i, e := range events {
		short[i] = strings.TrimPrefix(e, "email.")
	}
	return strings.Join(short, ",")
}

// templateName is the template a webhook uses ("default" when none).
func templateName(t *model.WebhookTemplate) string {
	switch {
	case t == nil || t.Type == "":
		return model.TemplateDefault
	case t.Body != "":
		return model.TemplateCustom
	}
	return t.Type
}
