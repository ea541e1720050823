package model

import "encoding/json"

// Event is the webhook envelope (the body of the default template).
type Event struct {
	ID        string          `json:"id"`
	Object    string          `json:"object"`
	CreatedAt int64           `json:"createdAt"`
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
}

// Deletion reasons of email.deleted.
const (
	DeleteReasonManual   = "manual"
	DeleteReasonTTL      = "ttl"
	DeleteReasonEviction = "eviction"
)

// EventAddress is an address in event data.
type EventAddress struct {
	Address string `json:"address"`
	Name    string `json:"name,omitempty"`
}

// EventAttachment describes an attachment in event data, without content.
type EventAttachment struct {
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
}

// EventAuth holds the result strings of the main checks in event data.
type EventAuth struct {
	SPF   string `json:"spf,omitempty"`
	DKIM  string `json:"dkim,omitempty"`
	DMARC string `json:"dmarc,omitempty"`
}

// EventAuth is the webhook payload's summary of the checks: the result of
// each reported check the summary has a field for, as Check.Result reads
// it (DKIM: pass when a signature passed, else the deciding signature's,
// as the verdict reads it); nil when none of them was reported.
func (cs Checks) EventAuth() *EventAuth {
	var s EventAuth
	reported := false
	for _, c := range cs {
		if f := s.field(c.Name); f != nil && c.Reported {
			*f, reported = c.Result, true
		}
	}
	if !reported {
		return nil
	}
	return &s
}

// field is the summary's field of the check named name, nil for a check
// the summary has none for (reverse DNS).
func (s *EventAuth) field(name string) *string {
	switch name {
	case CheckSPF:
		return &s.SPF
	case CheckDKIM:
		return &s.DKIM
	case CheckDMARC:
		return &s.DMARC
	}
	return nil
}

// EmailReceivedData is the data of email.received.
type EmailReceivedData struct {
	ID          string            `json:"id"`
	InboxID     string            `json:"inboxId"`
	InboxEmail  string            `json:"inboxEmail"`
	From        EventAddress      `json:"from"`
	To          []EventAddress    `json:"to"`
	CC          []EventAddress    `json:"cc,omitempty"`
	Subject     string            `json:"subject"`
	Snippet     string            `json:"snippet"`
	TextBody    string            `json:"textBody,omitempty"`
	HTMLBody    string            `json:"htmlBody,omitempty"`
	Headers     map[string]string `json:"headers"`
	Attachments []EventAttachment `json:"attachments"`
	Auth        *EventAuth        `json:"auth,omitempty"`
	ReceivedAt  string            `json:"receivedAt"`
}

// EmailStoredData is the data of email.stored.
type EmailStoredData struct {
	ID         string `json:"id"`
	InboxID    string `json:"inboxId"`
	InboxEmail string `json:"inboxEmail"`
	StoredAt   string `json:"storedAt"`
}

// EmailDeletedData is the data of email.deleted.
type EmailDeletedData struct {
	ID         string `json:"id"`
	InboxID    string `json:"inboxId"`
	InboxEmail string `json:"inboxEmail"`
	Reason     string `json:"reason"`
	DeletedAt  string `json:"deletedAt"`
}
