package servertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/client/smtpsend"
	"sandview/crypto"
	"sandview/model"
	"sandview/server"
)

// Client is a minimal HTTP client of the API of one test server, which
// fails its test on any error (the typed client lives in package client).
// Key is the API key it sends ("" none).
type Client struct {
	T   testing.TB
	Srv *server.Server
	Key string
}

// NewClient is a client of srv with its API key.
func NewClient(t testing.TB, srv *server.Server) *Client {
	return &Client{T: t, Srv: srv, Key: srv.APIKey()}
}

// Do sends a request and returns the status and body.
func (a *Client) Do(method, path string, body any) (int, []byte) {
	a.T.Helper()
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			a.T.Fatalf("encode body: %v", err)
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, a.Srv.URL()+path, reader)
	if err != nil {
		a.T.Fatalf("new request: %v", err)
	}
	if a.Key != "" {
		req.Header.Set("X-API-Key", a.Key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		a.T.Fatalf("read %s %s: %v", method, path, err)
	}
	return resp.StatusCode, data
}

// Expect sends a request, checks the status and decodes the body into out
// (when out is not nil).
func (a *Client) Expect(status int, method, path string, body, out any) {
	a.T.Helper()
	got, data := a.Do(method, path, body)
	if got != status {
		a.T.Fatalf("%s %s: status %d, want %d; body %s", method, path, got, status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			a.T.Fatalf("%s %s: decode %s: %v", method, path, data, err)
		}
	}
}

// ExpectError checks an error status and the contract's error body, and
// that the message mentions want.
func (a *Client) ExpectError(status int, method, path string, body any, want string) {
	a.T.Helper()
	got, data := a.Do(method, path, body)
	if got != status {
		a.T.Fatalf("%s %s: status %d, want %d; body %s", method, path, got, status, data)
	}
	var e model.ErrorBody
	if err := json.Unmarshal(data, &e); err != nil {
		a.T.Fatalf("%s %s: error body %s: %v", method, path, data, err)
	}
	if e.StatusCode != status || e.Error == "" || !strings.Contains(e.Message.String(), want) {
		a.T.Fatalf("%s %s: error body %+v, want status %d and a message containing %q", method, path, e, status, want)
	}
}

// CreatePlain creates a plain inbox (req may be nil).
func (a *Client) CreatePlain(req map[string]any) model.Inbox {
	a.T.Helper()
	if req == nil {
		req = map[string]any{}
	}
	req["encryption"] = "plain"
	var in model.Inbox
	a.Expect(http.StatusCreated, "POST", "/api/inboxes", req, &in)
	return in
}

// EncryptedInbox is an encrypted inbox with its key pair.
type EncryptedInbox struct {
	model.Inbox
	Keys crypto.KeyPair
}

// CreateEncrypted creates an encrypted inbox with a new key pair.
func (a *Client) CreateEncrypted(req map[string]any) EncryptedInbox {
	a.T.Helper()
	keys, err := crypto.GenerateKeyPair()
	if err != nil {
		a.T.Fatal(err)
	}
	if req == nil {
		req = map[string]any{}
	}
	req["clientKemPk"] = crypto.EncodeBase64URL(keys.PublicKey)
	var in model.Inbox
	a.Expect(http.StatusCreated, "POST", "/api/inboxes", req, &in)
	return EncryptedInbox{Inbox: in, Keys: keys}
}

// Emails lists an inbox's emails.
func (a *Client) Emails(address string, withContent bool) []model.EmailRecord {
	a.T.Helper()
	var out []model.EmailRecord
	a.Expect(http.StatusOK, "GET", fmt.Sprintf("/api/inboxes/%s/emails?includeContent=%t", url.PathEscape(address), withContent), nil, &out)
	return out
}

// Email reads one email.
func (a *Client) Email(address, id string) model.EmailRecord {
	a.T.Helper()
	var out model.EmailRecord
	a.Expect(http.StatusOK, "GET", "/api/inboxes/"+url.PathEscape(address)+"/emails/"+id, nil, &out)
	return out
}

// Raw reads one email's raw source.
func (a *Client) Raw(address, id string) model.RawRecord {
	a.T.Helper()
	var out model.RawRecord
	a.Expect(http.StatusOK, "GET", "/api/inboxes/"+url.PathEscape(address)+"/emails/"+id+"/raw", nil, &out)
	return out
}

// Sync reads an inbox's sync status.
func (a *Client) Sync(address string) model.SyncStatus {
	a.T.Helper()
	var out model.SyncStatus
	a.Expect(http.StatusOK, "GET", "/api/inboxes/"+url.PathEscape(address)+"/sync", nil, &out)
	return out
}

// WaitForCount polls the sync endpoint until the inbox holds n emails.
func (a *Client) WaitForCount(address string, n int) {
	a.T.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := a.Sync(address).EmailCount
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			a.T.Fatalf("inbox %s holds %d emails, want %d", address, got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// DecodePlain decodes a plain record's metadata and parsed content.
func DecodePlain(t testing.TB, rec model.EmailRecord) (model.EmailMetadata, model.ParsedContent) {
	t.Helper()
	var meta model.EmailMetadata
	var parsed model.ParsedContent
	DecodeB64JSON(t, rec.Metadata, &meta)
	if rec.Parsed != "" {
		DecodeB64JSON(t, rec.Parsed, &parsed)
	}
	return meta, parsed
}

// DecodeB64JSON decodes base64 JSON into out.
func DecodeB64JSON(t testing.TB, s string, out any) {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("base64 %q: %v", s, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("json %s: %v", data, err)
	}
}

// SendMail sends one message over SMTP (plain, no login) and returns the
// server's error, if any (smtpsend.Code gives its SMTP code).
func SendMail(addr, from string, to []string, msg []byte) error {
	return smtpsend.Send(context.Background(), addr, from, to, msg)
}

// MustSend sends msg to one recipient over SMTP or fails the test.
func MustSend(t testing.TB, srv *server.Server, to string, msg []byte) {
	t.Helper()
	if err := SendMail(srv.SMTPAddr(), "sender@example.org", []string{to}, msg); err != nil {
		t.Fatalf("send to %s: %v", to, err)
	}
}

// SimpleMessage is a small text message.
func SimpleMessage(to, subject string) []byte {
	return []byte("From: Sender <sender@example.org>\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nMessage-ID: <" + subject + "@example.org>\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\n\r\nHello " + subject + "\r\n")
}

// StreamReader reads `data:` messages of an event stream.
type StreamReader struct {
	resp  *http.Response
	lines *bufio.Scanner
}

// OpenStream opens the event stream of hashes on srv.
func OpenStream(t testing.TB, srv *server.Server, hashes ...string) *StreamReader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL()+"/api/events?inboxes="+strings.Join(hashes, ","), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", srv.APIKey())
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("open stream: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("open stream: status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return &StreamReader{resp: resp, lines: lines}
}

// Next returns the next data message, or an error when the stream ends.
func (s *StreamReader) Next() (model.StreamEvent, error) {
	for s.lines.Scan() {
		line := s.lines.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		var ev model.StreamEvent
		if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &ev); err != nil {
			return ev, fmt.Errorf("decode %q: %w", data, err)
		}
		return ev, nil
	}
	if err := s.lines.Err(); err != nil {
		return model.StreamEvent{}, err
	}
	return model.StreamEvent{}, io.EOF
}

// NextNotification skips heartbeats.
func (s *StreamReader) NextNotification(t testing.TB) model.StreamEvent {
	t.Helper()
	for {
		ev, err := s.Next()
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		if ev.IsNotification() {
			return ev
		}
	}
}

// StartAPI starts a server for t (see Start) with a client of its API.
func StartAPI(t testing.TB, opts ...func(*server.Config)) (*server.Server, *Client) {
	t.Helper()
	srv := Start(t, opts...)
	return srv, NewClient(t, srv)
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers: a log sink.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
