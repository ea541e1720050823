package reader

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sandview/model"
	"sandview/model/mimeword"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// header is one header field of a message as it was sent: its name in its
// own case and its value unfolded and decoded, both sanitized.
type header struct{ name, value string }

// parseHeaders reads the header section of a raw message with the one
// header reader (model.HeaderFields, as the server's parser does): every
// field in order, repeats kept, RFC 2047 encoded words decoded in any
// charset the WHATWG index knows, sanitized for the terminal.
func parseHeaders(raw []byte) []header {
	fields := model.HeaderFields(raw)
	out := make([]header, len(fields))
	for i, f := range fields {
		out[i] = header{name: termtext.SanitizeLine(f.Name), value: termtext.SanitizeLine(strings.TrimSpace(mimeword.Decode(f.Value)))}
	}
	return out
}

// summaryFields are the headers the summary at the top of the Headers tab
// shows, in order.
var summaryFields = []string{"From", "To", "Cc", "Reply-To", "Date", "Subject"}

// headersTab shows the headers as sent: a summary of the addresses, date
// and subject, then every field in order. They come from the raw source,
// fetched when the tab is first shown.
type headersTab struct {
	ctx    *ui.Context
	source *source
}

func (t *headersTab) label(_ model.Email, short bool) string { return shortName("Headers", short) }

func (t *headersTab) lines(m model.Email, width, _ int) tabContent {
	st := t.ctx.Styles()
	if p := t.source.pending(t.ctx, "the headers as sent", width); p != nil {
		if t.source.err == "" || len(m.Headers) == 0 {
			return textContent(p)
		}
		// What the server parsed is better than nothing.
		p = append(p, "", st.Muted.Render("The server's summary of the headers (merged, in no order):"))
		for _, name := range slices.Sorted(maps.Keys(m.Headers)) {
			p = append(p, t.field(name+": ", m.Headers[name], width, 4)...)
		}
		return textContent(p)
	}
	fields := t.source.parsedHeaders()
	if len(fields) == 0 {
		return textContent([]string{st.Muted.Render("The message has no headers.")})
	}
	var summary []string
	for _, name := range summaryFields {
		var values []string
		for _, h := range fields {
			if strings.EqualFold(h.name, name) {
				values = append(values, h.value)
			}
		}
		if len(values) > 0 {
			summary = append(summary, t.field(fmt.Sprintf("%-10s", name), strings.Join(values, ", "), width, 10)...)
		}
	}
	if env := m.Envelope; env != nil {
		// Not header fields: what the SMTP client said (MAIL FROM, RCPT TO).
		summary = append(summary, t.field("Envelope from ", model.ReversePath(env.From), width, 14)...)
		summary = append(summary, t.field("Delivered to  ", strings.Join(model.AddrSpecs(env.To), ", "), width, 14)...)
	}
	all := []string{"", st.Muted.Render(fmt.Sprintf("All %d header fields, in the order sent:", len(fields)))}
	for _, h := range fields {
		label := h.name + ": "
		if h.name == "" {
			label = "(not a header field) "
		}
		all = append(all, t.field(label, h.value, width, 4)...)
	}
	return textContent(summary, all)
}

// field lays out "label value": the value wraps, its lines after the
// first indented by indent cells.
func (t *headersTab) field(label, value string, width, indent int) []string {
	st := t.ctx.Styles()
	lines := ui.WrapHanging(label+value, width, max(width-indent, 1))
	pad := strings.Repeat(" ", indent)
	for i, l := range lines {
		switch {
		case i > 0:
			lines[i] = pad + st.Value.Render(l)
		case strings.HasPrefix(l, label):
			lines[i] = st.Label.Render(label) + st.Value.Render(l[len(label):])
		default:
			lines[i] = st.Label.Render(l)
		}
	}
	return lines
}
