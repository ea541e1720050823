package mailparse

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"sandview/model"
)

// Message is what the server stores for one received mail.
type Message struct {
	// From is the display form of the From header, such as
	// `"Dana Example" <dana@example.org>` or `dana@example.org`; "" if absent.
	From string
	// FromAddress is the bare address of From, as written; "" if none.
	FromAddress string
	FromName    string
	// To holds one display string per To recipient.
	To          []string
	ToAddresses []model.EventAddress
	Cc          []model.EventAddress
	// Subject is RFC 2047 decoded.
	Subject string
	// Date is zero when the header is absent or unparseable.
	Date time.Time
	// MessageID is the Message-ID header as written, angle brackets included.
	MessageID string
	// Content holds the bodies, headers, attachments and links; AuthResults
	// is left empty for the server to fill.
	Content model.ParsedContent
	// Warnings lists parse problems; a message with warnings is still stored.
	// They may quote short fragments of the message.
	Warnings []string
}

const (
	maxWarnings      = 20
	maxWarningLength = 200
	maxProblemLength = 120
)

// Parse reads a raw RFC 5322 message. It never fails and never panics:
// malformed input yields whatever could be read plus Warnings, and input
// that cannot be parsed at all is kept as the text body (made valid UTF-8).
// The text body is not derived from the HTML when the message has none.
// Attachment content and the returned strings do not alias raw. An mbox
// "From " line the message starts with is dropped (model.StripMboxFrom).
func Parse(raw []byte) *Message {
	raw = model.StripMboxFrom(raw)
	if len(bytes.TrimSpace(raw)) == 0 {
		m := newMessage()
		m.Content.Text = validUTF8(raw)
		m.warn("empty message")
		return m
	}
	if !startsWithHeader(raw) {
		m := rawTextMessage(raw)
		m.warn("no header section; the whole message is kept as text")
		return m
	}
	m, problem := parseMIME(raw)
	if m != nil {
		return m
	}
	m, fallbackProblem := parseHeadersOnly(raw)
	if m != nil {
		m.warn("MIME structure unreadable (" + problem + "); body kept as text")
		return m
	}
	m = rawTextMessage(raw)
	problem += "; " + fallbackProblem
	m.warn("message unreadable (" + problem + "); kept as text")
	return m
}

func newMessage() *Message {
	return &Message{
		To:          []string{},
		ToAddresses: []model.EventAddress{},
		Cc:          []model.EventAddress{},
		Content: model.ParsedContent{
			Headers:     model.HeaderMap{},
			Attachments: []model.Attachment{},
			Links:       []string{},
		},
	}
}

// rawTextMessage keeps the whole input as the text body.
func rawTextMessage(raw []byte) *Message {
	m := newMessage()
	m.Content.Text = validUTF8(raw)
	m.Content.Links = ExtractLinks(m.Content.Text, "")
	return m
}

// warn records a parse problem, shortened and capped in number.
func (m *Message) warn(problem string) {
	switch {
	case len(m.Warnings) < maxWarnings:
		m.Warnings = append(m.Warnings, shorten(validUTF8String(problem), maxWarningLength))
	case len(m.Warnings) == maxWarnings:
		m.Warnings = append(m.Warnings, "further warnings omitted")
	}
}

func shorten(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// startsWithHeader reports whether raw opens with a header field ("Name:")
// or with the empty line that ends an empty header section.
func startsWithHeader(raw []byte) bool {
	if raw[0] == '\n' || bytes.HasPrefix(raw, []byte("\r\n")) {
		return true
	}
	for i, b := range raw {
		switch {
		case b == ':':
			return i > 0
		case b <= ' ' || b >= 0x7f:
			return false
		}
	}
	return false
}

// recovered runs parse and turns a panic into a problem description.
func recovered(parse func() (*Message, string)) (m *Message, problem string) {
	defer func() {
		if r := recover(); r != nil {
			m = nil
			problem = shorten(fmt.Sprintf("parser panic: %v", r), maxProblemLength)
		}
	}()
	return parse()
}

// parseMIME reads the MIME structure, strictly and fast when the message is
// well formed, with enmime's tolerant parser otherwise. A nil Message comes
// with the reason.
func parseMIME(raw []byte) (*Message, string) {
	strict, _ := recovered(func() (*Message, string) {
		root, ok := parseStrict(raw)
		if !ok {
			return nil, ""
		}
		m := newMessage()
		m.fillFromTree(root, raw)
		return m, ""
	})
	if strict != nil {
		return strict, ""
	}
	return parseTolerant(raw)
}

// fillFromTree sets everything but the warnings of the parser from a part
// tree. When no part gives a body or a file, the raw body is kept as text.
func (m *Message) fillFromTree(root *part, raw []byte) {
	m.fillHeaders(messageHeaders(raw))
	m.fillBodies(root)
	m.fillAttachments(root)
	if m.Content.Text == "" && m.Content.HTML == "" && len(m.Content.Attachments) == 0 {
		if body := messageBody(raw); len(bytes.TrimSpace(body)) > 0 {
			m.Content.Text = validUTF8(body)
			m.warn("no readable MIME part; body kept as text")
		}
	}
	m.Content.Links = ExtractLinks(m.Content.Text, m.Content.HTML)
}

// parseHeadersOnly reads the header section and keeps the body as text.
func parseHeadersOnly(raw []byte) (*Message, string) {
	return recovered(func() (*Message, string) {
		m := newMessage()
		m.fillHeaders(messageHeaders(raw))
		m.Content.Text = validUTF8(messageBody(raw))
		m.Content.Links = ExtractLinks(m.Content.Text, "")
		return m, ""
	})
}

// messageBody returns what follows the first empty line, or nothing.
func messageBody(raw []byte) []byte {
	if raw[0] == '\n' {
		return raw[1:]
	}
	if bytes.HasPrefix(raw, []byte("\r\n")) {
		return raw[2:]
	}
	lf := bytes.Index(raw, []byte("\n\n"))
	crlf := bytes.Index(raw, []byte("\n\r\n"))
	switch {
	case lf >= 0 && (crlf < 0 || lf < crlf):
		return raw[lf+2:]
	case crlf >= 0:
		return raw[crlf+3:]
	}
	return nil
}

// fillHeaders sets the header map and the envelope fields.
func (m *Message) fillHeaders(h rawHeaders) {
	m.Content.Headers = h.decoded()
	if len(h) == 0 {
		m.warn("no header section")
	}

	if !h.has("from") {
		m.warn("missing From header")
	}
	from, ok := parseAddressHeader(h.first("from"))
	if !ok {
		m.warn("From header is not a valid address")
	}
	if len(from) > 0 {
		m.FromAddress = from[0].Address
		m.FromName = from[0].Name
		m.From = model.DisplayAddress(from[0])
	} else if h.has("from") {
		m.From = decodeHeaderValue(h.first("from"))
	}

	to, ok := parseAddressHeader(strings.Join(h["to"], ", "))
	if !ok {
		m.warn("To header is not a valid address list")
	}
	if to != nil {
		m.ToAddresses = to
		m.To = model.DisplayAddresses(to)
	}
	cc, ok := parseAddressHeader(strings.Join(h["cc"], ", "))
	if !ok {
		m.warn("Cc header is not a valid address list")
	}
	if cc != nil {
		m.Cc = cc
	}

	m.Subject = decodeHeaderValue(h.first("subject"))
	m.MessageID = decodeHeaderValue(h.first("message-id"))
	if date := strings.TrimSpace(h.first("date")); date != "" {
		parsed, err := model.ParseDate(date)
		if err != nil {
			m.warn("unreadable Date header")
		} else {
			m.Date = parsed
		}
	}
}
