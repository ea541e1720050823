package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"sandview/crypto"
	"sandview/model"
)

// Problem texts of emails that could not be opened. A payload signed by
// another server key than the one pinned is a decryption failure too:
// every failure of the crypto checks reads the same (SECURITY.md), the
// error's class (*ServerKeyMismatchError) tells programs which it was.
const (
	ProblemDecryptionFailed = "decryption failed"
	ProblemUnreadable       = "unreadable record"
)

// Email returns one email with its full content.
func (i *Inbox) Email(ctx context.Context, id string) (model.Email, error) {
	var rec model.EmailRecord
	err := i.c.do(ctx, request{
		method:   http.MethodGet,
		path:     emailPath(i.info.EmailAddress, id),
		out:      &rec,
		notFound: emailNotFound(i.info.EmailAddress, id),
	})
	if err != nil {
		return model.Email{}, fmt.Errorf("get email %s: %w", id, err)
	}
	if i.info.Encrypted && rec.Encrypted() {
		if _, err := i.openerFor(ctx); err != nil {
			return model.Email{}, err
		}
	}
	return i.OpenRecord(rec)
}

// OpenRecord decrypts (or decodes, for a plain inbox) an email record. When
// the record cannot be opened the email still carries its id, read state
// and time, with Problem set, and the error says why.
func (i *Inbox) OpenRecord(r model.EmailRecord) (model.Email, error) {
	e := model.Email{ID: r.ID, InboxHash: r.InboxID, IsRead: r.IsRead}
	if e.InboxHash == "" {
		e.InboxHash = i.info.InboxHash
	}
	e.ReceivedAt = parseTimeLiberal(r.ReceivedAt)

	metaJSON, err := i.section(r.ID, r.EncryptedMetadata, r.Metadata, "metadata")
	if err != nil {
		return failed(e, err), err
	}
	var meta model.EmailMetadata
	if err := jsonv1.Unmarshal(metaJSON, &meta); err != nil {
		err = fmt.Errorf("email %s: decode metadata: %w", r.ID, err)
		return failed(e, err), err
	}
	applyMetadata(&e, meta)

	if !r.HasContent() {
		return e, nil
	}
	parsedJSON, err := i.section(r.ID, r.EncryptedParsed, r.Parsed, "content")
	if err != nil {
		return failed(e, err), err
	}
	withMeta := e
	if err := applyParsed(&e, parsedJSON); err != nil {
		err = fmt.Errorf("email %s: decode content: %w", r.ID, err)
		return failed(withMeta, err), err
	}
	return e, nil
}

// OpenStreamEvent decodes a new-email notification of the event stream:
// metadata only (HasContent false). Heartbeats and other messages are an
// error; check StreamEvent.IsNotification first.
func (i *Inbox) OpenStreamEvent(ev model.StreamEvent) (model.Email, error) {
	if !ev.IsNotification() {
		return model.Email{}, fmt.Errorf("stream event of type %q is not a new-email notification", ev.Type)
	}
	if ev.InboxID != i.info.InboxHash {
		return model.Email{}, fmt.Errorf("stream event for inbox hash %s does not belong to inbox %s", ev.InboxID, i.info.EmailAddress)
	}
	return i.OpenRecord(model.EmailRecord{
		ID:                ev.EmailID,
		InboxID:           ev.InboxID,
		EncryptedMetadata: ev.EncryptedMetadata,
		Metadata:          ev.Metadata,
	})
}

// section returns the JSON of one part of a record: the opened payload of
// an encrypted record or the base64-decoded text of a plain one. For an
// encrypted inbox a part without its payload, or with a plain copy next to
// it, is refused (see refusesPlain).
func (i *Inbox) section(id string, payload *crypto.Payload, encoded, what string) ([]byte, error) {
	if err := refusesPlain(i.info, id, payload, encoded); err != nil {
		return nil, err
	}
	if payload != nil {
		return i.open(id, payload)
	}
	b, ok := decodeBase64Liberal(encoded)
	if !ok {
		return nil, fmt.Errorf("email %s: the %s is not valid base64", id, what)
	}
	return b, nil
}

// refusesPlain is the no-downgrade rule: an inbox known as encrypted takes
// its mail only as signed, encrypted payloads. A part that comes without
// its payload, or with a plain copy as well, is what a tampering proxy or
// server would send to slip in unsigned content; it fails like a payload
// that does not open (the one generic DecryptionError), whatever the plain
// field holds. The inverse, a payload for a plain inbox, fails in open: a
// plain inbox has no key to check it with.
func refusesPlain(info model.Inbox, id string, payload *crypto.Payload, plain string) error {
	if info.Encrypted && (payload == nil || plain != "") {
		return &DecryptionError{EmailID: id}
	}
	return nil
}

// open decrypts one payload of the email id with the inbox's keys.
func (i *Inbox) open(id string, p *crypto.Payload) ([]byte, error) {
	if !i.info.Encrypted {
		return nil, &DecryptionError{EmailID: id}
	}
	o, err := i.openerFor(i.c.ctx)
	if err != nil {
		return nil, err
	}
	plain, err := o.Open(p)
	switch {
	case errors.Is(err, crypto.ErrServerKeyMismatch):
		return nil, &ServerKeyMismatchError{EmailID: id}
	case err != nil:
		return nil, &DecryptionError{EmailID: id}
	}
	return plain, nil
}

// failed marks an email that could not be opened.
func failed(e model.Email, err error) model.Email {
	e.Problem = ProblemUnreadable
	if isRefusal(err) {
		e.Problem = ProblemDecryptionFailed
	}
	return e
}

// refusal returns the error of an email that failed the crypto checks
// (Problem set by failed from a *DecryptionError or a
// *SignatureVerificationError), or nil. Operations that must halt on those
// (security rule 4) but only hold the email use it.
func refusal(e model.Email) error {
	if e.Problem == ProblemDecryptionFailed {
		return fmt.Errorf("email %s: %w", e.ID, &DecryptionError{EmailID: e.ID})
	}
	return nil
}

// isRefusal reports whether err is a failure of the crypto checks.
func isRefusal(err error) bool {
	var decryption *DecryptionError
	var signature *SignatureVerificationError
	return errors.As(err, &decryption) || errors.As(err, &signature)
}

func applyMetadata(e *model.Email, meta model.EmailMetadata) {
	if e.ID == "" {
		e.ID = meta.ID
	}
	e.From = meta.From
	e.To = []string(meta.To)
	if e.To == nil {
		e.To = []string{}
	}
	e.Subject = meta.Subject
	e.Envelope = meta.Envelope // optional: the reference service sends none
	if e.ReceivedAt.IsZero() {
		e.ReceivedAt = parseTimeLiberal(meta.ReceivedAt)
	}
}

// wireParsed is the parsed content with attachments decoded liberally.
type wireParsed struct {
	model.ParsedContent
	Attachments []wireAttachment `json:"attachments"`
}

// wireAttachment accepts any base64 alphabet for content and a
// fractional size.
type wireAttachment struct {
	Filename           string  `json:"filename"`
	ContentType        string  `json:"contentType"`
	Size               float64 `json:"size"`
	ContentID          string  `json:"contentId"`
	ContentDisposition string  `json:"contentDisposition"`
	Content            string  `json:"content"`
	Checksum           string  `json:"checksum"`
}

func applyParsed(e *model.Email, data []byte) error {
	var p wireParsed
	if err := jsonv1.Unmarshal(data, &p); err != nil {
		return err
	}
	e.HasContent = true
	e.Text = p.Text
	e.HTML = p.HTML
	e.Headers = map[string]string(p.Headers)
	if e.Headers == nil {
		e.Headers = map[string]string{}
	}
	e.Links = p.Links
	if e.Links == nil {
		e.Links = []string{}
	}
	e.AuthResults = p.AuthResults
	e.Metadata = p.Metadata
	e.SpamAnalysis = p.SpamAnalysis
	e.Attachments = make([]model.Attachment, 0, len(p.Attachments))
	for k, a := range p.Attachments {
		content, ok := []byte{}, true
		if a.Content != "" {
			content, ok = decodeBase64Liberal(a.Content)
		}
		if !ok {
			return fmt.Errorf("attachment %d (%s): content is not valid base64", k+1, a.Filename)
		}
		size := int64(a.Size)
		if size <= 0 {
			size = int64(len(content))
		}
		e.Attachments = append(e.Attachments, model.Attachment{
			Filename:           a.Filename,
			ContentType:        a.ContentType,
			Size:               size,
			ContentID:          a.ContentID,
			ContentDisposition: a.ContentDisposition,
			Content:            content,
			Checksum:           a.Checksum,
		})
	}
	return nil
}

// parseTimeLiberal reads an ISO 8601 timestamp; an unreadable one is the
// zero time.
func parseTimeLiberal(s string) time.Time {
	t, _ := ParseTimestamp(s)
	return t
}

// ParseTimestamp reads an ISO 8601 timestamp as services and SDKs write
// them: RFC 3339 with or without fractional seconds, a numeric zone
// without a colon, or a zone-less time (read as UTC).
func ParseTimestamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 timestamp", s)
}
