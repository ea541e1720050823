package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"sandview/crypto"
	"sandview/model"
)

// Problem texts of emails that could not be opened.
const (
	ProblemDecryptionFailed  = "decryption failed"
	ProblemServerKeyMismatch = "server key mismatch"
	ProblemUnreadable        = "unreadable record"
)

// parallelOpenThreshold is the list size from which records are opened by
// a pool of GOMAXPROCS workers.
const parallelOpenThreshold = 8

// maxRawLayers is how many base64 layers around a raw message are undone.
const maxRawLayers = 3

// ListOptions choose what Emails fetches.
type ListOptions struct {
	// IncludeContent fetches bodies, headers, attachments, links and auth
	// results too; without it only metadata is returned (HasContent false).
	IncludeContent bool
}

// Emails returns every email of the inbox, newest first. An email that
// cannot be opened is still returned, with Problem set, and the returned
// error joins those failures (*DecryptionError, *ServerKeyMismatchError or
// a decoding error): callers that show lists use the slice and report the
// error. Request failures return a nil slice.
func (i *Inbox) Emails(ctx context.Context, opts ListOptions) ([]model.Email, error) {
	body, err := i.listBody(ctx, opts)
	if err != nil {
		return nil, err
	}
	if i.info.Encrypted {
		if _, err := i.openerFor(ctx); err != nil {
			return nil, err
		}
	}
	emails, err := i.openList(body)
	sortNewestFirst(emails)
	return emails, err
}

// listBody fetches the raw list of the inbox's email records.
func (i *Inbox) listBody(ctx context.Context, opts ListOptions) ([]byte, error) {
	var body []byte
	err := i.c.do(ctx, request{
		method:   http.MethodGet,
		path:     inboxPath(i.info.EmailAddress) + "/emails",
		query:    url.Values{"includeContent": {fmt.Sprint(opts.IncludeContent)}},
		rawOut:   &body,
		notFound: inboxNotFound(i.info.EmailAddress),
	})
	if err != nil {
		return nil, fmt.Errorf("list emails of %s: %w", i.info.EmailAddress, err)
	}
	return body, nil
}

// emailIDs lists the ids of the inbox's emails in the server's order
// (newest first) without opening them: ids are not encrypted, and they are
// all delivery needs to find new mail.
func (i *Inbox) emailIDs(ctx context.Context) ([]string, error) {
	body, err := i.listBody(ctx, ListOptions{})
	if err != nil {
		return nil, err
	}
	raw, err := splitJSONArray(body)
	if err != nil {
		return nil, fmt.Errorf("list emails of %s: the server sent a list that is not a JSON array: %w", i.info.EmailAddress, err)
	}
	ids := make([]string, 0, len(raw))
	for _, rec := range raw {
		if id := recordID(rec); id != "" {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// openList decodes a list body and opens every record. The array is split
// into records by a fast scan, and each record is decoded and opened by
// the worker pool, so one malformed record costs only itself.
func (i *Inbox) openList(body []byte) ([]model.Email, error) {
	raw, err := splitJSONArray(body)
	if err != nil {
		return nil, fmt.Errorf("list emails of %s: the server sent a list that is not a JSON array: %w", i.info.EmailAddress, err)
	}
	return i.openEach(len(raw), func(k int) (model.Email, error) {
		var rec model.EmailRecord
		if err := json.Unmarshal(raw[k], &rec); err != nil {
			e := model.Email{ID: recordID(raw[k]), Problem: ProblemUnreadable, InboxHash: i.info.InboxHash}
			return e, fmt.Errorf("email %s: the server sent a record that cannot be decoded: %w", e.ID, err)
		}
		return i.OpenRecord(rec)
	})
}

// splitJSONArray returns the elements of a JSON array without decoding
// them. It checks only the array's structure (brackets, strings, commas);
// each element is validated when it is decoded.
func splitJSONArray(b []byte) ([][]byte, error) {
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, errors.New("no [ ... ] around the list")
	}
	inner := b[1 : len(b)-1]
	var out [][]byte
	depth, start := 0, -1
	for k := 0; k < len(inner); k++ {
		switch ch := inner[k]; ch {
		case '"':
			if start < 0 {
				start = k
			}
			end, ok := stringEnd(inner, k+1)
			if !ok {
				return nil, errors.New("unterminated string")
			}
			k = end
		case '{', '[':
			if start < 0 {
				start = k
			}
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced %q", ch)
			}
		case ',':
			if depth > 0 {
				continue
			}
			if start < 0 {
				return nil, errors.New("empty element")
			}
			out = append(out, bytes.TrimSpace(inner[start:k]))
			start = -1
		case ' ', '\t', '\n', '\r':
		default:
			if start < 0 {
				start = k
			}
		}
	}
	if depth != 0 {
		return nil, errors.New("unbalanced brackets")
	}
	if start >= 0 {
		out = append(out, bytes.TrimSpace(inner[start:]))
	} else if len(out) > 0 {
		return nil, errors.New("trailing comma")
	}
	return out, nil
}

// stringEnd returns the index of the quote that closes a JSON string whose
// content starts at from.
func stringEnd(b []byte, from int) (int, bool) {
	for {
		q := bytes.IndexByte(b[from:], '"')
		if q < 0 {
			return 0, false
		}
		q += from
		backslashes := 0
		for p := q - 1; p >= from && b[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q, true
		}
		from = q + 1
	}
}

// openEach runs open for records 0..n-1, on a pool of GOMAXPROCS workers
// when there are many. Every record yields an email; failures are joined
// in record order.
func (i *Inbox) openEach(n int, open func(k int) (model.Email, error)) ([]model.Email, error) {
	emails := make([]model.Email, n)
	errs := make([]error, n)
	workers := min(runtime.GOMAXPROCS(0), n)
	if n < parallelOpenThreshold || workers < 2 {
		for k := range n {
			emails[k], errs[k] = open(k)
		}
		return emails, errors.Join(errs...)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				emails[k], errs[k] = open(k)
			}
		})
	}
	wg.Wait()
	return emails, errors.Join(errs...)
}

// recordID digs the id out of a record that does not decode as a whole.
func recordID(raw json.RawMessage) string {
	var probe struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(raw, &probe) == nil && probe.ID != nil {
		return fmt.Sprint(probe.ID)
	}
	return ""
}

// sortNewestFirst orders emails by receivedAt, newest first, keeping the
// server's order among equal times.
func sortNewestFirst(emails []model.Email) {
	sort.SliceStable(emails, func(a, b int) bool {
		return emails[a].ReceivedAt.After(emails[b].ReceivedAt)
	})
}

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
	if rec.Encrypted() {
		if _, err := i.openerFor(ctx); err != nil {
			return model.Email{}, err
		}
	}
	return i.OpenRecord(rec)
}

// Raw returns the RFC 5322 source of an email, decoded from its transport
// forms (see decodeRawMessage).
func (i *Inbox) Raw(ctx context.Context, id string) ([]byte, error) {
	var rec model.RawRecord
	err := i.c.do(ctx, request{
		method:   http.MethodGet,
		path:     emailPath(i.info.EmailAddress, id) + "/raw",
		out:      &rec,
		notFound: emailNotFound(i.info.EmailAddress, id),
	})
	if err != nil {
		return nil, fmt.Errorf("get raw email %s: %w", id, err)
	}
	if rec.EncryptedRaw != nil {
		if _, err := i.openerFor(ctx); err != nil {
			return nil, err
		}
	}
	return i.OpenRaw(rec)
}

// OpenRaw decodes a raw record: the encrypted payload is opened; the
// message is then unwrapped from base64 as often as the server wrapped it.
func (i *Inbox) OpenRaw(rec model.RawRecord) ([]byte, error) {
	if rec.EncryptedRaw != nil {
		plain, err := i.open(rec.ID, rec.EncryptedRaw)
		if err != nil {
			return nil, err
		}
		return unwrapMessage(plain), nil
	}
	if rec.Raw == "" {
		return nil, fmt.Errorf("raw email %s: the server sent no message", rec.ID)
	}
	decoded, ok := decodeBase64Liberal(rec.Raw)
	if !ok {
		return nil, fmt.Errorf("raw email %s: the message is not valid base64", rec.ID)
	}
	return unwrapMessage(decoded), nil
}

// unwrapMessage undoes the deployments' extra base64 layers: it returns
// the first of b, base64(b), base64(base64(b)) that looks like a message,
// or b itself. A real message is never valid base64 (its header lines
// contain ':'), so this cannot damage one.
func unwrapMessage(b []byte) []byte {
	candidate := b
	for range maxRawLayers {
		if looksLikeMessage(candidate) {
			return candidate
		}
		decoded, ok := decodeBase64Liberal(string(candidate))
		if !ok {
			break
		}
		candidate = decoded
	}
	if looksLikeMessage(candidate) {
		return candidate
	}
	return b
}

// looksLikeMessage reports whether b starts with an RFC 5322 header line
// ("Name: value", the name printable ASCII without ':').
func looksLikeMessage(b []byte) bool {
	line := b
	if n := bytes.IndexByte(b, '\n'); n >= 0 {
		line = b[:n]
	}
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return false
	}
	for _, ch := range line[:colon] {
		if ch <= ' ' || ch > '~' {
			return false
		}
	}
	return true
}

// decodeBase64Liberal decodes standard or URL-safe base64, padded or not,
// ignoring line breaks.
func decodeBase64Liberal(s string) ([]byte, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	if strings.ContainsAny(s, "\r\n") {
		s = strings.NewReplacer("\r", "", "\n", "").Replace(s)
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
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
	if err := json.Unmarshal(metaJSON, &meta); err != nil {
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
// an encrypted record or the base64-decoded text of a plain one.
func (i *Inbox) section(id string, payload *crypto.Payload, encoded, what string) ([]byte, error) {
	if payload != nil {
		return i.open(id, payload)
	}
	b, ok := decodeBase64Liberal(encoded)
	if !ok {
		return nil, fmt.Errorf("email %s: the %s is not valid base64", id, what)
	}
	return b, nil
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
	var mismatch *ServerKeyMismatchError
	var decryption *DecryptionError
	switch {
	case errors.As(err, &mismatch):
		e.Problem = ProblemServerKeyMismatch
	case errors.As(err, &decryption):
		e.Problem = ProblemDecryptionFailed
	default:
		e.Problem = ProblemUnreadable
	}
	return e
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
	if err := json.Unmarshal(data, &p); err != nil {
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
	t, _ := parseISO8601(s)
	return t
}

// parseISO8601 accepts RFC 3339 with or without fractional seconds, a
// numeric zone without a colon, and a zone-less time (read as UTC).
func parseISO8601(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 timestamp", s)
}
