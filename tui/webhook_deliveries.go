package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"sandview/client/webhookrecv"
	"sandview/theme"
)

// deliveryPane shows the built-in receiver: where it listens and each
// delivery as it lands, with the selected one's headers and body.
type deliveryPane struct {
	sh     *shared
	data   *webhookData
	cursor int // selected delivery (0 = newest)
	offset int // first delivery row shown
	scroll int // scroll of the selected delivery's body
	width  int
	height int
}

// SetSize sets the outer size of the pane.
func (p *deliveryPane) SetSize(width, height int) {
	p.width, p.height = width, height
	p.keepCursorVisible()
}

// listRows is how many delivery rows are shown above the selected body.
func (p *deliveryPane) listRows() int {
	return clampInt(len(p.data.deliveries), 1, max((p.contentHeight()-len(p.statusLines()))/3, 3))
}

func (p *deliveryPane) contentHeight() int { return max(p.height-2, 1) }

// move selects another delivery.
func (p *deliveryPane) move(delta int) {
	p.cursor = clampInt(p.cursor+delta, 0, len(p.data.deliveries)-1)
	p.scroll = 0
	p.keepCursorVisible()
}

func (p *deliveryPane) keepCursorVisible() {
	rows := p.listRows()
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+rows {
		p.offset = p.cursor - rows + 1
	}
	p.offset = clampInt(p.offset, 0, len(p.data.deliveries)-rows)
}

// arrived keeps the selection on the same delivery when a new one is put
// first (the newest stays selected when it was).
func (p *deliveryPane) arrived() {
	if p.cursor > 0 {
		p.cursor++
		p.offset++
	}
	p.keepCursorVisible()
}

// scrollBody scrolls the selected delivery's body.
func (p *deliveryPane) scrollBody(delta int) {
	p.scroll = clampInt(p.scroll+delta, 0, max(len(p.bodyLines())-1, 0))
}

// statusLines says whether the receiver runs and where.
func (p *deliveryPane) statusLines() []string {
	st := p.sh.styles()
	width := max(p.width-2, 10)
	d := p.data
	var out []string
	if d.recvURL != "" {
		n := len(d.receiverSecrets())
		out = append(out, wrapStyled(st.HookEnabled.Render, fmt.Sprintf("● listening on %s · verifying with %d secret%s", d.recvURL, n, plural(n)), width)...)
	} else {
		out = append(out, wrapStyled(st.Muted.Render, "The built-in receiver is off. Press l to start it on 127.0.0.1 and create a global webhook pointing at it; then send mail to any inbox.", width)...)
	}
	if d.recvErr != "" {
		out = append(out, wrapStyled(st.FieldError.Render, "✗ "+d.recvErr, width)...)
	}
	if d.dropped > 0 {
		out = append(out, st.AuthWarn.Render(fmt.Sprintf("%d deliveries dropped (arrived faster than shown)", d.dropped)))
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// View renders the pane.
func (p *deliveryPane) View(focused bool) string {
	st := p.sh.styles()
	width := max(p.width-2, 10)
	body := p.statusLines()
	d := p.data
	if len(d.deliveries) == 0 {
		if d.recvURL != "" {
			body = append(body, "", st.Muted.Render("Waiting for deliveries…"))
		}
	} else {
		end := min(p.offset+p.listRows(), len(d.deliveries))
		for i := p.offset; i < end; i++ {
			body = append(body, p.row(d.deliveries[i], i == p.cursor, focused, width))
		}
		body = append(body, st.Pane.Render(strings.Repeat("─", width)))
		rest := max(p.contentHeight()-len(body), 0)
		lines := p.bodyLines()
		body = append(body, window(lines, p.scroll, rest)...)
	}
	title := fmt.Sprintf("Deliveries (%d)", len(d.deliveries))
	return frame(p.sh, title, focused, p.width, p.height, body)
}

// row renders one delivery on one line.
func (p *deliveryPane) row(dl delivery, selected, focused bool, width int) string {
	st := p.sh.styles()
	sig, sigStyle := signatureText(st, dl.signature)
	event := dl.event
	if event == "" {
		event = "(no event)"
	}
	left := fmt.Sprintf(" %-5s %-15s %s ", relativeTime(dl.receivedAt, p.sh.now), event, dl.id)
	age := " · ts " + dl.age.Round(time.Second).String()
	if selected {
		style := st.SelectedBlurred
		if focused {
			style = st.Selected
		}
		return style.Render(fit(left+sig+age, width))
	}
	return st.Normal.Render(left) + sigStyle.Render(sig) + st.Muted.Render(age)
}

// bodyLines renders the selected delivery: verdict, headers, pretty body.
func (p *deliveryPane) bodyLines() []string {
	d := p.data
	if p.cursor < 0 || p.cursor >= len(d.deliveries) {
		return nil
	}
	st := p.sh.styles()
	width := max(p.width-2, 10)
	dl := d.deliveries[p.cursor]
	sig, sigStyle := signatureText(st, dl.signature)
	out := wrapStyled(sigStyle.Render, sig+": "+signatureExplain(dl), width)
	meta := fmt.Sprintf("received %s · timestamp %s (%s old on arrival)", dl.receivedAt.UTC().Format("15:04:05 UTC"), orNone(dl.timestamp), dl.age.Round(time.Second))
	out = append(out, wrapStyled(st.Muted.Render, meta, width)...)
	out = append(out, "")
	if dl.body.empty() {
		out = append(out, st.Muted.Render("(empty body)"))
	} else {
		out = append(out, dl.body.lines(p.sh, width)...)
	}
	if len(dl.headers) > 0 {
		out = append(out, "", st.Label.Render("Headers"))
	}
	for _, h := range dl.headers {
		out = append(out, wrapStyled(st.Muted.Render, h, width)...)
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
