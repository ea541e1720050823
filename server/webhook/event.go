package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"sandview/model"
)

// Incoming is an event the server feeds in.
type Incoming struct {
	// Type is model.EventEmailReceived, EventEmailStored or EventEmailDeleted.
	Type string
	// At is when it happened.
	At time.Time
	// InboxEmail and InboxHash name the inbox; EmailID is the server's email
	// id (without the `msg_` prefix; Received.ID is replaced by the id in
	// the engine's data shape).
	InboxEmail, InboxHash, EmailID string
	// Reason is set on email.deleted.
	Reason string
	// Received is the full data of email.received, headers unabridged (the
	// engine applies MaxHeaders and MaxHeaderValueLen).
	Received *model.EmailReceivedData
	// AuthVerdict is the email's authentication verdict on email.received
	// (model.Checks.Verdict): a filter's requireAuth wants it pass.
	AuthVerdict model.AuthVerdict
}

// emailSummary is what the chat templates show of an email; kept from its
// email.received for the stored and deleted events that follow.
type emailSummary struct {
	From    string // display form: `Name <address>` or the address
	To      string // addresses, comma separated
	Subject string
	Preview string
}

func summaryOf(d *model.EmailReceivedData) emailSummary {
	to := make([]string, len(d.To))
	for i, a := range d.To {
		to[i] = model.AddrSpec(a.Address)
	}
	return emailSummary{
		From:    displayAddress(d.From),
		To:      strings.Join(to, ", "),
		Subject: d.Subject,
		Preview: d.Snippet,
	}
}

// displayAddress is the sender as the built-in templates of the
// reference service write it, the name unquoted; the address as RFC 5322
// writes it (model.AddrSpec, the one address formatter).
func displayAddress(a model.EventAddress) string {
	if a.Name == "" {
		return model.AddrSpec(a.Address)
	}
	return a.Name + " <" + model.AddrSpec(a.Address) + ">"
}

// eventView is one event as every template sees it. The default body and
// the generic tree for custom templates are built on first use.
type eventView struct {
	envelope model.Event
	at       time.Time
	// exactly one of these is set, after the type
	received *model.EmailReceivedData
	stored   *model.EmailStoredData
	deleted  *model.EmailDeletedData
	// summary of the email (from its email.received), nil when unknown
	summary *emailSummary

	defaultBody []byte
	tree        map[string]any
}

// dataShape is how event data is written: the header limits of
// email.received and the form of the email id (data.id).
type dataShape struct {
	maxHeaders, maxHeaderValueLen int
	messageIDPrefix               string
}

// dataShape is the shape cfg gives event data.
func (cfg Config) dataShape() dataShape {
	return dataShape{maxHeaders: cfg.MaxHeaders, maxHeaderValueLen: cfg.MaxHeaderValueLen, messageIDPrefix: cfg.wire().messageIDPrefix}
}

// newEventView builds the envelope of ev with a fresh event id, its data
// written in shape.
func newEventView(ev Incoming, eventID string, at time.Time, shape dataShape, summary *emailSummary) (*eventView, error) {
	v := &eventView{at: at, summary: summary}
	msgID := shape.messageIDPrefix + ev.EmailID
	var data any
	switch ev.Type {
	case model.EventEmailReceived:
		r := model.EmailReceivedData{ID: msgID, InboxID: ev.InboxHash, InboxEmail: ev.InboxEmail}
		if ev.Received != nil {
			r = *ev.Received
			r.ID = msgID
		}
		r.Headers = limitHeaders(r.Headers, shape.maxHeaders, shape.maxHeaderValueLen)
		if r.To == nil {
			r.To = []model.EventAddress{}
		}
		if r.Attachments == nil {
			r.Attachments = []model.EventAttachment{}
		}
		s := summaryOf(&r)
		v.received, v.summary, data = &r, &s, &r
	case model.EventEmailStored:
		v.stored = &model.EmailStoredData{ID: msgID, InboxID: ev.InboxHash, InboxEmail: ev.InboxEmail, StoredAt: isoTime(at)}
		data = v.stored
	case model.EventEmailDeleted:
		v.deleted = &model.EmailDeletedData{ID: msgID, InboxID: ev.InboxHash, InboxEmail: ev.InboxEmail, Reason: ev.Reason, DeletedAt: isoTime(at)}
		data = v.deleted
	default:
		return nil, fmt.Errorf("unknown event type %q", ev.Type)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("encode %s data: %w", ev.Type, err)
	}
	v.envelope = model.Event{ID: eventID, Object: "event", CreatedAt: at.Unix(), Type: ev.Type, Data: raw}
	return v, nil
}

// body is the default template: the envelope.
func (v *eventView) body() ([]byte, error) {
	if v.defaultBody == nil {
		b, err := json.Marshal(v.envelope)
		if err != nil {
			return nil, fmt.Errorf("encode event: %w", err)
		}
		v.defaultBody = b
	}
	return v.defaultBody, nil
}

// genericTree is the envelope as decoded JSON (numbers as json.Number),
// plus `timestamp`, for custom-template lookups.
func (v *eventView) genericTree() (map[string]any, error) {
	if v.tree != nil {
		return v.tree, nil
	}
	b, err := v.body()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("decode event: %w", err)
	}
	tree["timestamp"] = isoTime(v.at)
	v.tree = tree
	return tree, nil
}

// limitHeaders keeps the first max headers in name order, each value cut to
// maxLen characters.
func limitHeaders(in map[string]string, max, maxLen int) map[string]string {
	out := make(map[string]string, min(len(in), max))
	names := slices.Sorted(maps.Keys(in))
	for _, name := range names {
		if len(out) >= max {
			break
		}
		out[name] = cutRunes(in[name], maxLen)
	}
	return out
}

// cutRunes returns at most n characters of s.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// truncateText cuts s to n characters, ending with "…" when cut.
func truncateText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return cutRunes(s, n-1) + "…"
}

// isoTime renders t as the API does: UTC ISO 8601 with milliseconds.
func isoTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
