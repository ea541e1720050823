package model

import (
	"time"

	"sandview/crypto"
)

// Email is a decrypted (or decoded, for plain inboxes) email: the contract's
// Email object.
type Email struct {
	ID          string            `json:"id"`
	InboxHash   string            `json:"inboxId,omitempty"`
	From        string            `json:"from"`
	To          []string          `json:"to"`
	Subject     string            `json:"subject"`
	Text        string            `json:"text"`
	HTML        string            `json:"html"`
	ReceivedAt  time.Time         `json:"receivedAt"`
	IsRead      bool              `json:"isRead"`
	Headers     map[string]string `json:"headers"`
	Attachments []Attachment      `json:"attachments"`
	Links       []string          `json:"links"`
	AuthResults AuthResults       `json:"authResults"`
	Metadata    map[string]any    `json:"metadata,omitempty"`
	// SpamAnalysis is the spam score, when the server gave one.
	SpamAnalysis *SpamAnalysis `json:"spamAnalysis,omitempty"`
	// Envelope is the SMTP envelope, when the server sent it (see
	// Envelope); nil otherwise.
	Envelope *Envelope `json:"envelope,omitempty"`
	// HasContent is false when only the metadata was loaded (lists without
	// includeContent); the body, headers, links and auth results are then empty.
	HasContent bool `json:"-"`
	// Problem is set when the email, or its content, could not be opened (a
	// server-key mismatch or a decryption failure); what could not be opened
	// stays empty (HasContent is false). Such an email is shown, never hidden.
	Problem string `json:"problem,omitempty"`
}

// Attachment is a file attached to an email. Content is the decoded file
// (base64 on the wire).
type Attachment struct {
	Filename           string `json:"filename"`
	ContentType        string `json:"contentType"`
	Size               int64  `json:"size"`
	ContentID          string `json:"contentId,omitempty"`
	ContentDisposition string `json:"contentDisposition,omitempty"`
	Content            []byte `json:"content,omitempty"`
	Checksum           string `json:"checksum,omitempty"`
}

// EmailRecord is an email as the API returns it. A record with
// EncryptedMetadata belongs to an encrypted inbox; otherwise Metadata and
// Parsed hold base64-encoded JSON.
type EmailRecord struct {
	ID                string          `json:"id"`
	InboxID           string          `json:"inboxId,omitempty"`
	ReceivedAt        string          `json:"receivedAt,omitempty"`
	IsRead            bool            `json:"isRead"`
	EncryptedMetadata *crypto.Payload `json:"encryptedMetadata,omitempty"`
	EncryptedParsed   *crypto.Payload `json:"encryptedParsed,omitempty"`
	Metadata          string          `json:"metadata,omitempty"`
	Parsed            string          `json:"parsed,omitempty"`
}

// Encrypted reports whether the record belongs to an encrypted inbox.
func (r EmailRecord) Encrypted() bool { return r.EncryptedMetadata != nil }

// HasContent reports whether the record carries the parsed content.
func (r EmailRecord) HasContent() bool {
	return r.EncryptedParsed != nil || r.Parsed != ""
}

// RawRecord is the answer to GET .../emails/{id}/raw: EncryptedRaw for an
// encrypted inbox, Raw (base64 of the RFC 5322 message) for a plain one.
type RawRecord struct {
	ID           string          `json:"id"`
	EncryptedRaw *crypto.Payload `json:"encryptedRaw,omitempty"`
	Raw          string          `json:"raw,omitempty"`
}

// EmailMetadata is the decoded metadata of an email record.
type EmailMetadata struct {
	ID         string     `json:"id,omitempty"`
	From       string     `json:"from"`
	To         StringList `json:"to"`
	Subject    string     `json:"subject"`
	ReceivedAt string     `json:"receivedAt"`
	// Envelope is optional: the reference service does not send it.
	Envelope *Envelope `json:"envelope,omitempty"`
}

// ParsedContent is the decoded parsed content of an email record.
type ParsedContent struct {
	Text        string         `json:"text"`
	HTML        string         `json:"html"`
	Headers     HeaderMap      `json:"headers"`
	Attachments []Attachment   `json:"attachments"`
	Links       []string       `json:"links"`
	AuthResults AuthResults    `json:"authResults"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// SpamAnalysis is set when the server analysed the mail for spam, or
	// says why not.
	SpamAnalysis *SpamAnalysis `json:"spamAnalysis,omitempty"`
}

// StreamEvent is one `data:` message of GET /api/events: a new-email
// notification (InboxID and EmailID set) or a heartbeat (Type "heartbeat",
// no InboxID), which readers ignore.
type StreamEvent struct {
	InboxID           string          `json:"inboxId,omitempty"`
	EmailID           string          `json:"emailId,omitempty"`
	EncryptedMetadata *crypto.Payload `json:"encryptedMetadata,omitempty"`
	Metadata          string          `json:"metadata,omitempty"`
	Type              string          `json:"type,omitempty"`
}

// IsNotification reports whether the event announces an email (as opposed to
// a heartbeat or another kind of message).
func (e StreamEvent) IsNotification() bool {
	return e.InboxID != "" && e.EmailID != "" && (e.EncryptedMetadata != nil || e.Metadata != "")
}

// TestEmailAuth holds chosen authentication results for a test email.
type TestEmailAuth struct {
	SPF        string `json:"spf,omitempty"`
	DKIM       string `json:"dkim,omitempty"`
	DMARC      string `json:"dmarc,omitempty"`
	ReverseDNS string `json:"reverseDns,omitempty"`
}

// TestEmailRequest is the body of POST /api/test/emails in the contract's
// form: auth results at the top level, reverseDns a boolean.
type TestEmailRequest struct {
	To         string `json:"to"`
	From       string `json:"from,omitempty"`
	Subject    string `json:"subject,omitempty"`
	Text       string `json:"text,omitempty"`
	HTML       string `json:"html,omitempty"`
	SPF        string `json:"spf,omitempty"`
	DKIM       string `json:"dkim,omitempty"`
	DMARC      string `json:"dmarc,omitempty"`
	ReverseDNS *bool  `json:"reverseDns,omitempty"`
}

// NestedTestEmailRequest is the form deployed servers accept: auth results
// nested under "auth", reverseDns one of pass/fail/none.
type NestedTestEmailRequest struct {
	To      string         `json:"to"`
	From    string         `json:"from,omitempty"`
	Subject string         `json:"subject,omitempty"`
	Text    string         `json:"text,omitempty"`
	HTML    string         `json:"html,omitempty"`
	Auth    *TestEmailAuth `json:"auth,omitempty"`
}

// TestEmailResponse is the answer to POST /api/test/emails.
type TestEmailResponse struct {
	EmailID string `json:"emailId"`
}
