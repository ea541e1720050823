package webhooks

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
	"sandview/model"
	"sandview/tui/ui"
)

// hookRowHeight is the number of lines one webhook takes in the list.
const hookRowHeight = 2

// hookList is the pane listing the webhooks of every scope, under the
// metrics summary. Moving its cursor fetches the selected webhook's full
// record.
type hookList struct {
	ctx     *ui.Context
	keys    keys.WebhookKeyMap
	state   *hookState
	cmds    commands
	list    ui.List
	width   int
	height  int
	focused bool
}

// SetSize sets the outer size of the pane.
func (l *hookList) SetSize(width, height int) {
	l.width, l.height = width, height
	l.sync()
}

// SetFocus tells the pane whether it has the keyboard.
func (l *hookList) SetFocus(focused bool) { l.focused = focused }

// sync follows the data: the number of webhooks and the height of the
// metrics summary above them.
func (l *hookList) sync() {
	l.list.SetLen(len(l.state.hooks))
	l.list.SetHeight(l.height - 2 - len(l.headerLines()))
}

// selected returns the webhook under the cursor (its full record when
// loaded).
func (l *hookList) selected() (model.Webhook, bool) {
	l.sync()
	return l.state.hook(l.list.Cursor())
}

// selectID moves the cursor to the webhook id.
func (l *hookList) selectID(id string) {
	l.sync()
	if i := l.state.index(id); i >= 0 {
		l.list.Select(i)
	}
}

// loadSelected fetches the selected webhook's full record (secret, stats).
func (l *hookList) loadSelected() tea.Cmd {
	h, ok := l.selected()
	if !ok {
		return nil
	}
	return l.cmds.loadWebhook(h)
}

// HandleKey moves the cursor, loading the webhook it lands on.
func (l *hookList) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	l.sync()
	moved, ok := l.list.HandleKey(l.keys.ListKeyMap, msg)
	if moved {
		return l.loadSelected(), true
	}
	return nil, ok
}

// click selects the webhook at line y of the pane.
func (l *hookList) click(y int) tea.Cmd {
	l.sync()
	if i := l.list.RowAt(y - 1 - len(l.headerLines())); i >= 0 && l.list.Select(i) {
		return l.loadSelected()
	}
	return nil
}

// wheel moves the cursor by a turn of the wheel.
func (l *hookList) wheel(lines int) tea.Cmd {
	l.sync()
	if l.list.Wheel(lines) {
		return l.loadSelected()
	}
	return nil
}

// headerLines is the metrics summary above the rows.
func (l *hookList) headerLines() []string {
	st := l.ctx.Styles()
	width := max(l.width-2, 1)
	d := l.state
	var text string
	switch {
	case d.metricsErr != "":
		text = "metrics unavailable: " + d.metricsErr
	case d.metrics != nil:
		mt := d.metrics
		text = fmt.Sprintf("%s: %d global · %d inbox · %d enabled │ %s: %d ok · %d failed",
			ui.Plural(mt.Webhooks.Total, "webhook", "webhooks"), mt.Webhooks.Global, mt.Webhooks.Inbox, mt.Webhooks.Enabled,
			ui.Plural(mt.Deliveries.Total, "delivery", "deliveries"), mt.Deliveries.Successful, mt.Deliveries.Failed)
	default:
		text = "loading metrics…"
	}
	out := ui.WrapStyled(st.Muted.Render, text, width)
	if d.loadErr != "" {
		out = append(out, ui.WrapStyled(st.FieldError.Render, "⚠ "+d.loadErr, width)...)
	}
	return append(out, st.Pane.Render(strings.Repeat("─", width)))
}

// View draws the pane.
func (l *hookList) View() string {
	l.sync()
	st := l.ctx.Styles()
	inner := l.width - 2
	body := l.headerLines()
	d := l.state
	switch {
	case len(d.hooks) == 0 && d.loading:
		body = append(body, st.Muted.Render("Loading webhooks…"))
	case len(d.hooks) == 0:
		body = append(body, st.Muted.Render("No webhooks yet."),
			st.Muted.Render(fmt.Sprintf("%s creates one; %s creates one pointing at", ui.KeyName(l.keys.New), ui.KeyName(l.keys.Receiver))),
			st.Muted.Render("the built-in receiver, to watch deliveries."))
	}
	body = append(body, l.list.Render(func(i int, selected bool) []string {
		h, _ := d.hook(i)
		return l.row(h, selected, inner)
	})...)
	title := fmt.Sprintf("Webhooks (%d)", len(d.hooks))
	return ui.Frame(l.ctx, title, l.focused, l.width, l.height, body)
}

// row renders the two lines of one webhook.
func (l *hookList) row(h model.Webhook, selected bool, width int) []string {
	st := l.ctx.Styles()
	mark, markStyle := "●", st.HookEnabled
	if !h.Enabled {
		mark, markStyle = "○", st.HookDisabled
	}
	scope := model.ScopeGlobal
	if h.Scope == model.ScopeInbox {
		scope = h.InboxEmail
	}
	parts := []string{scope, eventsShort(h.Events), templateName(h.Template)}
	if _, ok := l.state.recvHooks[h.ID]; ok {
		parts = append(parts, "receiver")
	}
	last := lastDelivery(h, l.ctx.Now)
	line1 := " " + mark + " " + h.URL
	line2 := "   " + strings.Join(parts, " · ") + " · "
	if selected {
		style := st.SelectedBlurred
		if l.focused {
			style = st.Selected
		}
		return []string{style.Render(ui.Fit(line1, width)), style.Render(ui.Fit(line2+last.text, width))}
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

// ShortHelp lists the pane's keys.
func (l *hookList) ShortHelp() []key.Binding {
	k := l.keys
	return []key.Binding{k.Up, k.Down, k.Open, k.Edit, k.Test, k.Toggle, k.Delete}
}

// FullHelp lists the pane's keys in columns.
func (l *hookList) FullHelp() [][]key.Binding {
	k := l.keys
	return [][]key.Binding{k.ListKeyMap.ShortHelp(), {k.Open, k.Edit, k.Test, k.Rotate, k.Toggle, k.Delete}}
}
