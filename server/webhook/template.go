package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"sandview/model"
)

// templateLabels are the display names of the built-in templates, in the
// contract's order.
var templateLabels = [...]model.TemplateOption{
	{Label: "Default (raw event JSON)", Value: model.TemplateDefault},
	{Label: "Slack", Value: model.TemplateSlack},
	{Label: "Discord", Value: model.TemplateDiscord},
	{Label: "Microsoft Teams", Value: model.TemplateTeams},
	{Label: "Simple (from, to, subject, preview)", Value: model.TemplateSimple},
	{Label: "Notification (single text message)", Value: model.TemplateNotification},
	{Label: "Zapier (flat fields)", Value: model.TemplateZapier},
}

// compiledTemplate renders event bodies for one webhook.
type compiledTemplate struct {
	kind        string // a built-in name or model.TemplateCustom
	custom      *customTemplate
	contentType string
}

// templateError is a template the contract refuses with 422.
type templateError struct{ msg string }

func (e *templateError) Error() string { return e.msg }

// compileTemplate validates a template choice; nil means default.
func compileTemplate(t *model.WebhookTemplate) (*compiledTemplate, error) {
	if t == nil {
		return &compiledTemplate{kind: model.TemplateDefault, contentType: defaultContentType}, nil
	}
	ct := &compiledTemplate{kind: t.Type, contentType: defaultContentType}
	if t.ContentType != "" {
		if strings.ContainsAny(t.ContentType, "\r\n") || len(t.ContentType) > 255 {
			return nil, &templateError{"template.contentType must be one line of at most 255 characters"}
		}
		ct.contentType = t.ContentType
	}
	switch {
	case t.Type == model.TemplateCustom:
		if t.Body == "" {
			return nil, &templateError{"template.body is required for a custom template"}
		}
		if n := utf8.RuneCountInString(t.Body); n > maxCustomBodyLen {
			return nil, &templateError{fmt.Sprintf("template.body has %d characters; at most %d are allowed", n, maxCustomBodyLen)}
		}
		custom, err := compileCustom(t.Body)
		if err != nil {
			return nil, &templateError{"template.body: " + err.Error()}
		}
		ct.custom = custom
		at := sampleTime()
		sample, err := newEventView(sampleIncoming(model.EventEmailReceived, at), "evt_sample", at,
			DefaultMaxHeaders, DefaultMaxHeaderValueLen, nil)
		if err != nil {
			return nil, fmt.Errorf("build the sample event: %w", err)
		}
		out, err := ct.render(sample)
		if err != nil || !json.Valid(out) {
			return nil, &templateError{"template.body does not render to valid JSON with a sample event"}
		}
	case isBuiltin(t.Type):
		if t.Body != "" {
			return nil, &templateError{fmt.Sprintf("template.body is only allowed with type custom, not %s", t.Type)}
		}
	case t.Type == "":
		return nil, &templateError{"template.type is required"}
	default:
		return nil, &templateError{fmt.Sprintf("unknown template %q: use one of default, slack, discord, teams, simple, notification, zapier, or a custom template", t.Type)}
	}
	return ct, nil
}

func isBuiltin(name string) bool {
	for _, o := range templateLabels {
		if o.Value == name {
			return true
		}
	}
	return false
}

// render produces the delivery body of v.
func (t *compiledTemplate) render(v *eventView) ([]byte, error) {
	switch t.kind {
	case model.TemplateCustom:
		tree, err := v.genericTree()
		if err != nil {
			return nil, err
		}
		return t.custom.render(tree)
	case model.TemplateSlack:
		return json.Marshal(slackBody(v))
	case model.TemplateDiscord:
		return json.Marshal(discordBody(v))
	case model.TemplateTeams:
		return json.Marshal(teamsBody(v))
	case model.TemplateSimple:
		return json.Marshal(simpleBody(v))
	case model.TemplateNotification:
		return json.Marshal(map[string]string{"text": headline(v, true)})
	case model.TemplateZapier:
		return json.Marshal(zapierBody(v))
	}
	return v.body()
}

// facts is what the chat templates show.
type facts struct {
	title, from, to, subject, preview, inbox string
}

func factsOf(v *eventView) facts {
	f := facts{}
	if v.summary != nil {
		f.from, f.to, f.subject, f.preview = v.summary.From, v.summary.To, v.summary.Subject, v.summary.Preview
	}
	switch {
	case v.received != nil:
		f.title, f.inbox = "New email", v.received.InboxEmail
	case v.stored != nil:
		f.title, f.inbox = "Email stored", v.stored.InboxEmail
		f.preview = "Stored in " + v.stored.InboxEmail
	case v.deleted != nil:
		f.title, f.inbox = "Email deleted ("+v.deleted.Reason+")", v.deleted.InboxEmail
		f.preview = "Deleted from " + v.deleted.InboxEmail + " (" + v.deleted.Reason + ")"
	}
	return f
}

// headline is a one-line description of the event.
func headline(v *eventView, withIcon bool) string {
	f := factsOf(v)
	icon := ""
	var b strings.Builder
	switch {
	case v.received != nil:
		icon = "📧 "
		b.WriteString("New email")
		if f.from != "" {
			b.WriteString(" from " + f.from)
		}
		b.WriteString(" to " + f.inbox)
	case v.stored != nil:
		icon = "💾 "
		b.WriteString("Email stored in " + f.inbox)
	case v.deleted != nil:
		icon = "🗑️ "
		b.WriteString("Email deleted from " + f.inbox + " (" + v.deleted.Reason + ")")
	}
	if f.subject != "" {
		b.WriteString(": " + f.subject)
	}
	if withIcon {
		return icon + b.String()
	}
	return b.String()
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

// slackEscape escapes the characters Slack's mrkdwn treats as control.
func slackEscape(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

type slackText struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	Emoji bool   `json:"emoji,omitempty"`
}

type slackBlock struct {
	Type     string      `json:"type"`
	Text     *slackText  `json:"text,omitempty"`
	Fields   []slackText `json:"fields,omitempty"`
	Elements []slackText `json:"elements,omitempty"`
}

func slackBody(v *eventView) any {
	f := factsOf(v)
	field := func(k, val string) slackText {
		return slackText{Type: "mrkdwn", Text: "*" + k + ":*\n" + truncateText(slackEscape(orDash(val)), 1900)}
	}
	blocks := []slackBlock{
		{Type: "header", Text: &slackText{Type: "plain_text", Text: truncateText(f.title, 150), Emoji: true}},
		{Type: "section", Fields: []slackText{field("From", f.from), field("To", f.to), field("Subject", f.subject), field("Inbox", f.inbox)}},
	}
	if strings.TrimSpace(f.preview) != "" {
		blocks = append(blocks, slackBlock{Type: "section", Text: &slackText{Type: "mrkdwn", Text: truncateText(slackEscape(f.preview), 2900)}})
	}
	blocks = append(blocks, slackBlock{Type: "context", Elements: []slackText{{Type: "mrkdwn",
		Text: slackEscape(v.envelope.Type + " · " + v.envelope.ID + " · " + isoTime(v.at))}}})
	return struct {
		Text   string       `json:"text"`
		Blocks []slackBlock `json:"blocks"`
	}{Text: truncateText(headline(v, true), 3000), Blocks: blocks}
}

type discordField struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Inline bool   `json:"inline"`
}

type discordEmbed struct {
	Title       string         `json:"title"`
	Description string         `json:"description,omitempty"`
	Color       int            `json:"color"`
	Fields      []discordField `json:"fields"`
	Timestamp   string         `json:"timestamp"`
	Footer      struct {
		Text string `json:"text"`
	} `json:"footer"`
}

func discordBody(v *eventView) any {
	f := factsOf(v)
	color := 0x5865F2
	switch {
	case v.stored != nil:
		color = 0x57F287
	case v.deleted != nil:
		color = 0xED4245
	}
	title := f.title
	if f.subject != "" {
		title = f.subject
	}
	field := func(k, val string, inline bool) discordField {
		return discordField{Name: k, Value: truncateText(orDash(val), 1024), Inline: inline}
	}
	e := discordEmbed{
		Title:       truncateText(title, 256),
		Description: truncateText(f.preview, 4096),
		Color:       color,
		Fields:      []discordField{field("From", f.from, true), field("To", f.to, true), field("Inbox", f.inbox, false)},
		Timestamp:   isoTime(v.at),
	}
	e.Footer.Text = v.envelope.Type + " · " + v.envelope.ID
	return struct {
		Content string         `json:"content"`
		Embeds  []discordEmbed `json:"embeds"`
	}{Content: truncateText(headline(v, true), 2000), Embeds: []discordEmbed{e}}
}

type teamsFact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type teamsSection struct {
	ActivityTitle    string      `json:"activityTitle"`
	ActivitySubtitle string      `json:"activitySubtitle"`
	Facts            []teamsFact `json:"facts"`
	Text             string      `json:"text,omitempty"`
	Markdown         bool        `json:"markdown"`
}

func teamsBody(v *eventView) any {
	f := factsOf(v)
	color := "0078D7"
	switch {
	case v.stored != nil:
		color = "2EB886"
	case v.deleted != nil:
		color = "D13438"
	}
	return struct {
		Type       string         `json:"@type"`
		Context    string         `json:"@context"`
		Summary    string         `json:"summary"`
		ThemeColor string         `json:"themeColor"`
		Title      string         `json:"title"`
		Sections   []teamsSection `json:"sections"`
	}{
		Type:       "MessageCard",
		Context:    "https://schema.org/extensions",
		Summary:    truncateText(headline(v, false), 200),
		ThemeColor: color,
		Title:      f.title,
		Sections: []teamsSection{{
			ActivityTitle:    orDash(f.subject),
			ActivitySubtitle: f.inbox,
			Facts: []teamsFact{{"From", orDash(f.from)}, {"To", orDash(f.to)}, {"Event", v.envelope.Type},
				{"Event ID", v.envelope.ID}, {"Time", isoTime(v.at)}},
			Text: f.preview,
		}},
	}
}

func simpleBody(v *eventView) any {
	f := factsOf(v)
	return struct {
		From    string `json:"from"`
		To      string `json:"to"`
		Subject string `json:"subject"`
		Preview string `json:"preview"`
	}{f.from, f.to, f.subject, f.preview}
}

// zapierFields is the flat layout for automation platforms: every field at
// the top level, empty when the event has no such data.
type zapierFields struct {
	EventID         string `json:"eventId"`
	EventType       string `json:"eventType"`
	CreatedAt       int64  `json:"createdAt"`
	Timestamp       string `json:"timestamp"`
	EmailID         string `json:"emailId"`
	InboxID         string `json:"inboxId"`
	InboxEmail      string `json:"inboxEmail"`
	FromAddress     string `json:"fromAddress"`
	FromName        string `json:"fromName"`
	ToAddress       string `json:"toAddress"`
	ToAddresses     string `json:"toAddresses"`
	CcAddresses     string `json:"ccAddresses"`
	Subject         string `json:"subject"`
	Snippet         string `json:"snippet"`
	TextBody        string `json:"textBody"`
	HTMLBody        string `json:"htmlBody"`
	AttachmentCount int    `json:"attachmentCount"`
	AttachmentNames string `json:"attachmentNames"`
	AuthSPF         string `json:"authSpf"`
	AuthDKIM        string `json:"authDkim"`
	AuthDMARC       string `json:"authDmarc"`
	ReceivedAt      string `json:"receivedAt"`
	StoredAt        string `json:"storedAt"`
	DeletedAt       string `json:"deletedAt"`
	DeleteReason    string `json:"deleteReason"`
}

func zapierBody(v *eventView) any {
	z := zapierFields{EventID: v.envelope.ID, EventType: v.envelope.Type, CreatedAt: v.envelope.CreatedAt, Timestamp: isoTime(v.at)}
	if v.summary != nil {
		z.Subject, z.Snippet, z.ToAddresses = v.summary.Subject, v.summary.Preview, v.summary.To
	}
	switch {
	case v.received != nil:
		r := v.received
		z.EmailID, z.InboxID, z.InboxEmail = r.ID, r.InboxID, r.InboxEmail
		z.FromAddress, z.FromName = r.From.Address, r.From.Name
		if len(r.To) > 0 {
			z.ToAddress = r.To[0].Address
		}
		cc := make([]string, len(r.CC))
		for i, a := range r.CC {
			cc[i] = a.Address
		}
		z.CcAddresses = strings.Join(cc, ", ")
		z.TextBody, z.HTMLBody = r.TextBody, r.HTMLBody
		names := make([]string, len(r.Attachments))
		for i, a := range r.Attachments {
			names[i] = a.Filename
		}
		z.AttachmentCount, z.AttachmentNames = len(r.Attachments), strings.Join(names, ", ")
		if r.Auth != nil {
			z.AuthSPF, z.AuthDKIM, z.AuthDMARC = r.Auth.SPF, r.Auth.DKIM, r.Auth.DMARC
		}
		z.ReceivedAt = r.ReceivedAt
	case v.stored != nil:
		z.EmailID, z.InboxID, z.InboxEmail, z.StoredAt = v.stored.ID, v.stored.InboxID, v.stored.InboxEmail, v.stored.StoredAt
	case v.deleted != nil:
		d := v.deleted
		z.EmailID, z.InboxID, z.InboxEmail, z.DeletedAt, z.DeleteReason = d.ID, d.InboxID, d.InboxEmail, d.DeletedAt, d.Reason
	}
	return z
}

// customTemplate is a custom body split into literal JSON and slots.
type customTemplate struct {
	segments []segment
}

// segment is literal JSON text, or a string holding placeholders.
type segment struct {
	literal []byte
	// whole: the string is exactly one placeholder, replaced by a JSON value
	whole bool
	parts []part
}

// part is literal text or a placeholder path.
type part struct {
	text string
	path []string
}

// compileCustom parses a custom body. Placeholders standing alone as values
// are first quoted so that the text is JSON.
func compileCustom(body string) (*customTemplate, error) {
	quoted := quoteBarePlaceholders(body)
	dec := json.NewDecoder(strings.NewReader(quoted))
	dec.UseNumber()
	t := &customTemplate{}
	var lit bytes.Buffer
	flush := func() {
		if lit.Len() > 0 {
			t.segments = append(t.segments, segment{literal: bytes.Clone(lit.Bytes())})
			lit.Reset()
		}
	}
	// stack of containers: for objects, whether the next string is a key
	type frame struct {
		object, expectKey, first bool
	}
	var stack []frame
	topDone := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not valid JSON (placeholders aside): %w", err)
		}
		if topDone {
			return nil, errors.New("not valid JSON: text after the end of the value")
		}
		// separators before a value or key
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			isClose := tok == json.Delim('}') || tok == json.Delim(']')
			if !isClose {
				if top.object && !top.expectKey {
					lit.WriteByte(':')
				} else if !top.first {
					lit.WriteByte(',')
				}
				top.first = false
			}
		}
		isKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey
		switch v := tok.(type) {
		case json.Delim:
			lit.WriteRune(rune(v))
			switch v {
			case '{':
				stack = append(stack, frame{object: true, expectKey: true, first: true})
				continue
			case '[':
				stack = append(stack, frame{first: true})
				continue
			default:
				stack = stack[:len(stack)-1]
				isKey = false // the closed container was a value of its parent
			}
		case string:
			parts := splitPlaceholders(v)
			if len(parts) == 1 && parts[0].path == nil || len(parts) == 0 {
				enc, _ := json.Marshal(v)
				lit.Write(enc)
			} else {
				flush()
				t.segments = append(t.segments, segment{whole: !isKey && len(parts) == 1, parts: parts})
			}
		case json.Number:
			lit.WriteString(v.String())
		case bool:
			lit.WriteString(strconv.FormatBool(v))
		case nil:
			lit.WriteString("null")
		}
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].expectKey = !isKey
			}
		} else {
			topDone = true
		}
	}
	if !topDone {
		return nil, errors.New("not valid JSON: the value is incomplete")
	}
	flush()
	return t, nil
}

// quoteBarePlaceholders wraps every {{...}} that stands outside a JSON
// string in quotes.
func quoteBarePlaceholders(s string) string {
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			b.WriteByte(c)
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == '{' && strings.HasPrefix(s[i:], "{{") {
			if end := strings.Index(s[i+2:], "}}"); end >= 0 {
				if name := strings.TrimSpace(s[i+2 : i+2+end]); validPath(name) {
					b.WriteString(`"{{` + name + `}}"`)
					i += 2 + end + 1
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func validPath(name string) bool {
	if name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
		return false
	}
	for _, r := range name {
		if !(r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// splitPlaceholders splits s into literal text and placeholders.
func splitPlaceholders(s string) []part {
	var parts []part
	var lit strings.Builder
	for {
		start := strings.Index(s, "{{")
		if start < 0 {
			break
		}
		end := strings.Index(s[start+2:], "}}")
		if end < 0 {
			break
		}
		name := strings.TrimSpace(s[start+2 : start+2+end])
		if !validPath(name) {
			lit.WriteString(s[:start+2])
			s = s[start+2:]
			continue
		}
		lit.WriteString(s[:start])
		if lit.Len() > 0 {
			parts = append(parts, part{text: lit.String()})
			lit.Reset()
		}
		parts = append(parts, part{path: strings.Split(name, ".")})
		s = s[start+2+end+2:]
	}
	lit.WriteString(s)
	if lit.Len() > 0 {
		parts = append(parts, part{text: lit.String()})
	}
	return parts
}

// render fills the template from the event tree. The result is valid JSON
// whatever the values hold.
func (t *customTemplate) render(tree map[string]any) ([]byte, error) {
	var b bytes.Buffer
	for _, s := range t.segments {
		switch {
		case s.literal != nil:
			b.Write(s.literal)
		case s.whole:
			v, ok := lookup(tree, s.parts[0].path)
			if !ok {
				b.WriteString("null")
				continue
			}
			enc, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("encode template value: %w", err)
			}
			b.Write(enc)
		default:
			var text strings.Builder
			for _, p := range s.parts {
				if p.path == nil {
					text.WriteString(p.text)
					continue
				}
				if v, ok := lookup(tree, p.path); ok {
					text.WriteString(textOf(v))
				}
			}
			enc, err := json.Marshal(text.String())
			if err != nil {
				return nil, fmt.Errorf("encode template text: %w", err)
			}
			b.Write(enc)
		}
	}
	return b.Bytes(), nil
}

// lookup follows a dotted path through objects and arrays (numeric
// segments index arrays).
func lookup(tree map[string]any, path []string) (any, bool) {
	var cur any = tree
	for _, key := range path {
		switch node := cur.(type) {
		case map[string]any:
			next, ok := node[key]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			cur = node[i]
		default:
			return nil, false
		}
	}
	return cur, cur != nil
}

// textOf is the text of a value inside a string: strings as they are,
// numbers and booleans as written, objects and arrays as compact JSON.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(enc)
}
