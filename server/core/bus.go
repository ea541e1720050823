package core

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"sandview/model"
	"sandview/server/mailparse"
)

// EventInboxDeleted is the bus event of an inbox deleted (by a request or
// its TTL), after the email.deleted events of its emails. Only the bus
// carries it (the event stream's deletion notices), not the webhook
// engine.
const EventInboxDeleted = "inbox.deleted"

// Event is one message of the internal event bus. Type is one of
// model.EventEmailReceived, model.EventEmailStored,
// model.EventEmailDeleted and EventInboxDeleted:
//
//   - email.received: an email has arrived and is retrievable through the
//     API. Received holds the parsed message in plaintext (also for encrypted
//     inboxes: it lives only in memory, in this event); StreamJSON renders
//     the event stream's `data:` JSON for it.
//   - email.stored: the email is persisted (right after email.received; with
//     Config.DataDir it is on disk).
//   - email.deleted: the email is gone; Reason is model.DeleteReasonManual,
//     DeleteReasonTTL or DeleteReasonEviction.
//   - inbox.deleted: the inbox is gone; Reason is model.DeleteReasonManual
//     or DeleteReasonTTL.
//
// Events are shared between subscribers: treat every field as read-only.
type Event struct {
	Type    string
	At      time.Time
	Inbox   InboxRef
	EmailID string
	// Reason is set on email.deleted.
	Reason string
	// Received is set on email.received.
	Received *ReceivedEmail
	// Chaos is set on EventChaos.
	Chaos *model.ChaosAction

	// inbox and metadata (the stored metadata payload) are set on
	// email.received, for StreamJSON.
	inbox    *Inbox
	metadata []byte
}

// StreamJSON renders the event-stream JSON of an email.received event:
// {inboxId, emailId, encryptedMetadata} or {inboxId, emailId, metadata}.
// It is rendered for a listener that wants it, not for every email (about
// 10 KB for an encrypted one, built for nobody when no one listens).
func (e Event) StreamJSON() ([]byte, error) {
	if e.Type != model.EventEmailReceived || e.inbox == nil {
		return nil, fmt.Errorf("%s event of email %s: no stream message", e.Type, e.EmailID)
	}
	return streamJSON(e.inbox, e.EmailID, e.metadata)
}

// InboxRef names the inbox of an event.
type InboxRef struct {
	Address   string
	Hash      string
	Encrypted bool
}

// ReceivedEmail is the plaintext of a received email, for subscribers that
// need more than the stream's metadata (webhooks).
type ReceivedEmail struct {
	Message    *mailparse.Message
	Auth       model.AuthResults
	ReceivedAt time.Time
}

// snippetLength is the length of a webhook snippet, in characters.
const snippetLength = 200

// ReceivedData renders an email.received event as the webhook payload's data
// object (the email id with the `msg_` prefix; headers keep every value in
// full, a webhook engine applies its own limits). It returns false for other
// event types.
func (e Event) ReceivedData() (model.EmailReceivedData, bool) {
	if e.Type != model.EventEmailReceived || e.Received == nil {
		return model.EmailReceivedData{}, false
	}
	msg := e.Received.Message
	data := model.EmailReceivedData{
		ID:          "msg_" + e.EmailID,
		InboxID:     e.Inbox.Hash,
		InboxEmail:  e.Inbox.Address,
		From:        model.EventAddress{Address: msg.FromAddress, Name: msg.FromName},
		To:          msg.ToAddresses,
		CC:          msg.Cc,
		Subject:     msg.Subject,
		Snippet:     snippet(msg.Content.Text),
		TextBody:    msg.Content.Text,
		HTMLBody:    msg.Content.HTML,
		Headers:     make(map[string]string, len(msg.Content.Headers)),
		Attachments: make([]model.EventAttachment, 0, len(msg.Content.Attachments)),
		ReceivedAt:  FormatTime(e.Received.ReceivedAt),
	}
	if data.To == nil {
		data.To = []model.EventAddress{}
	}
	for name, value := range msg.Content.Headers {
		data.Headers[strings.ToLower(name)] = value
	}
	for _, a := range msg.Content.Attachments {
		data.Attachments = append(data.Attachments, model.EventAttachment{
			Filename: a.Filename, ContentType: a.ContentType, Size: a.Size,
		})
	}
	data.Auth = e.Received.Auth.Checks().EventAuth()
	return data, true
}

// snippet is the start of text, its runs of white space made one space,
// snippetLength characters at most. Only the fields it needs are joined:
// a mail's whole text, joined and turned into runes, was garbage of four
// times its size for every mail.
func snippet(text string) string {
	var b strings.Builder
	n := 0 // runes in b
	for field := range strings.FieldsSeq(text) {
		if n > snippetLength {
			break
		}
		if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(field)
		n += utf8.RuneCountInString(field)
	}
	if n <= snippetLength {
		return b.String()
	}
	return string([]rune(b.String())[:snippetLength])
}

// Bus fans events out to subscribers. Publishing never blocks: a subscriber
// whose buffer is full is dropped (its channel is closed) so that a slow
// reader never holds up ingest; it may subscribe again and re-sync.
type Bus struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
}

type subscriber struct {
	ch chan Event
}

func newBus() *Bus {
	return &Bus{subs: make(map[*subscriber]struct{})}
}

// Subscribe returns a channel receiving every event published from now on,
// buffered for buffer events (at least 1), and a cancel function (safe to
// call more than once). The channel is closed by cancel, when the subscriber
// falls more than buffer events behind, and when the server shuts down.
func (b *Bus) Subscribe(buffer int) (<-chan Event, func()) {
	if buffer < 1 {
		buffer = 1
	}
	s := &subscriber{ch: make(chan Event, buffer)}
	b.mu.Lock()
	if b.closed {
		close(s.ch)
	} else {
		b.subs[s] = struct{}{}
	}
	b.mu.Unlock()
	return s.ch, func() { b.drop(s) }
}

func (b *Bus) drop(s *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.subs[s]; ok {
		delete(b.subs, s)
		close(s.ch)
	}
}

// Publish delivers events to every subscriber without blocking.
func (b *Bus) Publish(events ...Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		for _, ev := range events {
			select {
			case s.ch <- ev:
			default:
				delete(b.subs, s)
				close(s.ch)
			}
			if _, still := b.subs[s]; !still {
				break
			}
		}
	}
}

// hasSubscribers reports whether anyone subscribes.
func (b *Bus) hasSubscribers() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs) > 0
}

// close ends every subscription; later subscriptions start closed.
func (b *Bus) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for s := range b.subs {
		delete(b.subs, s)
		close(s.ch)
	}
}

// FormatTime renders a timestamp as the API does: UTC ISO 8601 with
// milliseconds.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
