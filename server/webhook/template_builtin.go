package webhook

import "strings"

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
