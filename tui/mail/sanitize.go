package mail

import (
	"sandview/model"
	"sandview/model/termtext"
)

// sanitizeEmail makes every untrusted field of an email safe to print. It
// runs once, when the email enters the state.
func sanitizeEmail(e model.Email) model.Email {
	line := termtext.SanitizeLine
	e.ID = line(e.ID)
	e.From = line(e.From)
	e.Subject = line(e.Subject)
	e.Problem = line(e.Problem)
	e.To = sanitizeLines(e.To)
	if e.Envelope != nil {
		e.Envelope = &model.Envelope{From: line(e.Envelope.From), To: sanitizeLines(e.Envelope.To)}
	}
	if !e.HasContent {
		return e
	}
	e.Text = termtext.Sanitize(e.Text)
	e.HTML = termtext.Sanitize(e.HTML)
	if e.Headers != nil {
		h := make(map[string]string, len(e.Headers))
		for k, v := range e.Headers {
			h[line(k)] = line(v)
		}
		e.Headers = h
	}
	if e.Links != nil {
		links := make([]string, len(e.Links))
		for i, l := range e.Links {
			links[i] = line(l)
		}
		e.Links = links
	}
	if e.Attachments != nil {
		atts := make([]model.Attachment, len(e.Attachments))
		for i, a := range e.Attachments {
			a.Filename = line(a.Filename)
			a.ContentType = line(a.ContentType)
			a.ContentID = line(a.ContentID)
			a.ContentDisposition = line(a.ContentDisposition)
			a.Checksum = line(a.Checksum)
			atts[i] = a
		}
		e.Attachments = atts
	}
	user := e.SMTPUser()
	e.Metadata = nil // reserved; never shown, but for the SMTP login
	if user != "" {
		e.Metadata = map[string]any{model.MetadataSMTPUser: line(user)}
	}
	return e
}

// sanitizeLines is each line sanitized, in a new slice (nil stays nil).
func sanitizeLines(lines []string) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = termtext.SanitizeLine(l)
	}
	return out
}

// sanitizeInbox cleans the address of an inbox.
func sanitizeInbox(i model.Inbox) model.Inbox {
	i.EmailAddress = termtext.SanitizeLine(i.EmailAddress)
	return i
}
