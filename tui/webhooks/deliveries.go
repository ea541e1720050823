package webhooks

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"sandview/client/webhookrecv"
	"sandview/keys"
	"sandview/theme"
	"sandview/tui/ui"
)

// deliveries is the pane showing the built-in receiver: where it listens
// and each delivery as it lands, with the selected one's verdict, headers
// and body scrolled in a viewport.
type deliveries struct {
	ctx     *ui.Context
	keys    keys.WebhookKeyMap
	state   *hookState
	list    ui.List // over state.deliveries, newest first
	body    viewport.Model
	width   int
	height  int
	focused bool
}

// SetSize sets the outer size of the pane.
func (p *deliveries) SetSize(width, height int) {
	p.width, p.height = width, height
	p.body.SetWidth(max(width-2, 1))
	p.sync()
}

// SetFocus tells the pane whether it has the keyboard.
func (p *deliveries) SetFocus(focused bool) { p.focused = focused }

func (p *deliveries) contentHeight() int { return max(p.height-2, 1) }

// sync follows the deliveries: a third of the pane lists them (at least
// three rows), the selected one's body gets the rest.
func (p *deliveries) sync() {
	n := len(p.state.deliveries)
	p.list.SetLen(n)
	p.list.SetHeight(ui.Clamp(n, 1, max((p.contentHeight()-len(p.statusLines()))/3, 3)))
}

// arrived keeps the selection on the same delivery when a new one is put
// first (the newest stays selected when it was).
func (p *deliveries) arrived() {
	p.list.InsertFirst()
	p.sync()
}

// clear forgets the deliveries.
func (p *deliveries) clear() {
	p.state.deliveries = nil
	p.list = ui.NewList(1)
	p.body.SetYOffset(0)
	p.sync()
}

// HandleKey selects a delivery (up, down, first, last) or scrolls its body
// by half a pane (page keys).
func (p *deliveries) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := p.keys
	p.sync()
	p.refresh()
	half := max(p.contentHeight()/2, 1)
	switch {
	case key.Matches(msg, k.PageUp):
		p.scrollBody(-half)
	case key.Matches(msg, k.PageDown):
		p.scrollBody(half)
	default:
		moved, ok := p.list.HandleKey(k.ListKeyMap, msg)
		if moved {
			p.body.SetYOffset(0)
		}
		return nil, ok
	}
	return nil, true
}

// scrollBody scrolls the selected delivery's body.
func (p *deliveries) scrollBody(delta int) { p.body.SetYOffset(p.body.YOffset() + delta) }

// wheel scrolls the selected delivery's body by a turn of the wheel.
func (p *deliveries) wheel(lines int) {
	p.sync()
	p.refresh()
	p.scrollBody(lines)
}

// refresh fills the body viewport with the selected delivery, in the
// lines the list leaves.
func (p *deliveries) refresh() {
	width := max(p.width-2, 10)
	rows := min(p.list.Len(), p.list.Rows())
	p.body.SetHeight(max(p.contentHeight()-len(p.statusLines())-rows-1, 1))
	p.body.SetContentLines(ui.FitLines(p.bodyLines(), width))
}

// statusLines says whether the receiver runs and where.
func (p *deliveries) statusLines() []string {
	st := p.ctx.Styles()
	width := max(p.width-2, 10)
	d := p.state
	var out []string
	if d.recvURL != "" {
		n := len(d.receiverSecrets())
		out = append(out, ui.WrapStyled(st.HookEnabled.Render, fmt.Sprintf("● listening on %s · verifying with %d secret%s", d.recvURL, n, plural(n)), width)...)
	} else {
		out = append(out, ui.WrapStyled(st.Muted.Render, fmt.Sprintf("The built-in receiver is off. Press %s to start it on 127.0.0.1 and create a global webhook pointing at it; then send mail to any inbox.", ui.KeyName(p.keys.Receiver)), width)...)
	}
	if d.recvErr != "" {
		out = append(out, ui.WrapStyled(st.FieldError.Render, "✗ "+d.recvErr, width)...)
	}
	if d.dropped > 0 {
		out = append(out, st.AuthWarn.Render(fmt.Sprintf("%s dropped (arrived faster than shown)", ui.Plural(int(d.dropped), "delivery", "deliveries"))))
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// View draws the pane.
func (p *deliveries) View() string {
	p.sync()
	st := p.ctx.Styles()
	width := max(p.width-2, 10)
	body := p.statusLines()
	d := p.state
	if len(d.deliveries) == 0 {
		if d.recvURL != "" {
			body = append(body, "", st.Muted.Render("Waiting for deliveries…"))
		}
	} else {
		body = append(body, p.list.Render(func(i int, selected bool) []string {
			return []string{p.row(d.deliveries[i], selected, width)}
		})...)
		body = append(body, st.Pane.Render(strings.Repeat("─", width)))
		p.refresh()
		body = append(body, strings.Split(p.body.View(), "\n")...)
	}
	title := fmt.Sprintf("Deliveries (%d)", len(d.deliveries))
	return ui.Frame(p.ctx, title, p.focused, p.width, p.height, body)
}

// ShortHelp lists the pane's keys.
func (p *deliveries) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Clear, k.Back}
}

// FullHelp lists the pane's keys in columns.
func (p *deliveries) FullHelp() [][]key.Binding {
	return [][]key.Binding{p.keys.ListKeyMap.ShortHelp(), {p.keys.Receiver, p.keys.Clear, p.keys.Back}}
}

// row renders one delivery on one line.
func (p *deliveries) row(dl delivery, selected bool, width int) string {
	st := p.ctx.Styles()
	sig, sigStyle := signatureText(st, dl.signature)
	event := dl.event
	if event == "" {
		event = "(no event)"
	}
	left := fmt.Sprintf(" %-5s %-15s %s ", ui.RelativeTime(dl.receivedAt, p.ctx.Now), event, dl.id)
	age := " · ts " + dl.age.Round(time.Second).String()
	if selected {
		style := st.SelectedBlurred
		if p.focused {
			style = st.Selected
		}
		return style.Render(ui.Fit(left+sig+age, width))
	}
	return st.Normal.Render(left) + sigStyle.Render(sig) + st.Muted.Render(age)
}

// bodyLines renders the selected delivery: verdict, headers, pretty body.
func (p *deliveries) bodyLines() []string {
	d := p.state
	if p.list.Cursor() >= len(d.deliveries) {
		return nil
	}
	st := p.ctx.Styles()
	width := max(p.width-2, 10)
	dl := d.deliveries[p.list.Cursor()]
	sig, sigStyle := signatureText(st, dl.signature)
	out := ui.WrapStyled(sigStyle.Render, sig+": "+signatureExplain(dl), width)
	meta := fmt.Sprintf("received %s · timestamp %s (%s old on arrival)", dl.receivedAt.UTC().Format("15:04:05 UTC"), orNone(dl.timestamp), dl.age.Round(time.Second))
	out = append(out, ui.WrapStyled(st.Muted.Render, meta, width)...)
	out = append(out, "")
	if dl.body.empty() {
		out = append(out, st.Muted.Render("(empty body)"))
	} else {
		out = append(out, dl.body.lines(p.ctx.Theme, width)...)
	}
	if len(dl.headers) > 0 {
		out = append(out, "", st.Label.Render("Headers"))
	}
	for _, h := range dl.headers {
		out = append(out, ui.WrapStyled(st.Muted.Render, h, width)...)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// signatureText is the verdict with a symbol, so it reads without colour.
func signatureText(st *theme.Styles, s webhookrecv.SignatureStatus) (string, lipgloss.Style) {
	switch s {
	case webhookrecv.SignatureValid:
		return "✓ valid", st.SignatureValid
	case webhookrecv.SignatureStale:
		return "⚠ stale", st.SignatureStale
	case webhookrecv.SignatureUnchecked:
		return "? unchecked", st.SignatureStale
	case webhookrecv.SignatureMissing:
		return "✗ unsigned", st.SignatureInvalid
	}
	return "✗ invalid", st.SignatureInvalid
}

// signatureExplain says what the verdict means for this delivery.
func signatureExplain(dl delivery) string {
	tol := int(webhookrecv.DefaultTolerance / time.Second)
	switch dl.signature {
	case webhookrecv.SignatureValid:
		return "signed with the webhook's secret, timestamp fresh"
	case webhookrecv.SignatureStale:
		return fmt.Sprintf("signed with the webhook's secret, but the timestamp is missing or more than %d s away (%s)", tol, dl.age.Round(time.Second))
	case webhookrecv.SignatureUnchecked:
		return "signed, but the receiver has no secret to check it with"
	case webhookrecv.SignatureMissing:
		return "no signature header"
	}
	return "the signature matches none of the receiver's secrets"
}
