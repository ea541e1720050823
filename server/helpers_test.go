package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/smtp"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// api is a minimal HTTP client for one test server (the typed client lives
// in another package).
type api struct {
	t   testing.TB
	srv *server.Server
	key string
}

func newAPI(t testing.TB, srv *server.Server) *api {
	return &api{t: t, srv: srv, key: srv.APIKey()}
}

// do sends a request and returns the status and body.
func (a *api) do(method, path string, body any) (int, []byte) {
	a.t.Helper()
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			a.t.Fatalf("encode body: %v", err)
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, a.srv.URL()+path, reader)
	if err != nil {
		a.t.Fatalf("new request: %v", err)
	}
	if a.key != "" {
		req.Header.Set("X-API-Key", a.key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("read %s %s: %v", method, path, err)
	}
	return resp.StatusCode, data
}

// expect sends a request, checks the status and decodes the body into out
// (when out is not nil).
func (a *api) expect(status int, method, path string, body, out any) {
	a.t.Helper()
	got, data := a.do(method, path, body)
	if got != status {
		a.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, got, status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			a.t.Fatalf("%s %s: decode %s: %v", method, path, data, err)
		}
	}
}

// expectError checks an error status and the contract's error body, and
// that the message mentions want.
func (a *api) expectError(status int, method, path string, body any, want string) {
	a.t.Helper()
	got, data := a.do(method, path, body)
	if got != status {
		a.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, got, status, data)
	}
	var e model.ErrorBody
	if err := json.Unmarshal(data, &e); err != nil {
		a.t.Fatalf("%s %s: error body %s: %v", method, path, data, err)
	}
	if e.StatusCode != status || e.Error == "" || !strings.Contains(e.Message.String(), want) {
		a.t.Fatalf("%s %s: error body %+v, want status %d and a message containing %q", method, path, e, status, want)
	}
}

func (a *api) createPlain(req map[string]any) model.Inbox {
	a.t.Helper()
	if req == nil {
		req = map[string]any{}
	}
	req["encryption"] = "plain"
	var in model.Inbox
	a.expect(http.StatusCreated, "POST", "/api/inboxes", req, &in)
	return in
}

// encryptedInbox is an encrypted inbox with its key pair.
type encryptedInbox struct {
	model.Inbox
	keys crypto.KeyPair
}

func (a *api) createEncrypted(req map[string]any) encryptedInbox {
	a.t.Helper()
	keys, err := crypto.GenerateKeyPair()
	if err != nil {
		a.t.Fatal(err)
	}
	if req == nil {
		req = map[string]any{}
	}
	req["clientKemPk"] = crypto.EncodeBase64URL(keys.PublicKey)
	var in model.Inbox
	a.expect(http.StatusCreated, "POST", "/api/inboxes", req, &in)
	return encryptedInbox{Inbox: in, keys: keys}
}

func (a *api) emails(address string, withContent bool) []model.EmailRecord {
	a.t.Helper()
	var out []model.EmailRecord
	a.expect(http.StatusOK, "GET", fmt.Sprintf("/api/inboxes/%s/emails?includeContent=%t", url.PathEscape(address), withContent), nil, &out)
	return out
}

func (a *api) email(address, id string) model.EmailRecord {
	a.t.Helper()
	var out model.EmailRecord
	a.expect(http.StatusOK, "GET", "/api/inboxes/"+url.PathEscape(address)+"/emails/"+id, nil, &out)
	return out
}

func (a *api) raw(address, id string) model.RawRecord {
	a.t.Helper()
	var out model.RawRecord
	a.expect(http.StatusOK, "GET", "/api/inboxes/"+url.PathEscape(address)+"/emails/"+id+"/raw", nil, &out)
	return out
}

func (a *api) sync(address string) model.SyncStatus {
	a.t.Helper()
	var out model.SyncStatus
	a.expect(http.StatusOK, "GET", "/api/inboxes/"+url.PathEscape(address)+"/sync", nil, &out)
	return out
}

// waitForCount polls the sync endpoint until the inbox holds n emails.
func (a *api) waitForCount(address string, n int) {
	a.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := a.sync(address).EmailCount
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("inbox %s holds %d emails, want %d", address, got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// decodePlain decodes a plain record's metadata and parsed content.
func decodePlain(t testing.TB, rec model.EmailRecord) (model.EmailMetadata, model.ParsedContent) {
	t.Helper()
	var meta model.EmailMetadata
	var parsed model.ParsedContent
	decodeB64JSON(t, rec.Metadata, &meta)
	if rec.Parsed != "" {
		decodeB64JSON(t, rec.Parsed, &parsed)
	}
	return meta, parsed
}

func decodeB64JSON(t testing.TB, s string, out any) {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("base64 %q: %v", s, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("json %s: %v", data, err)
	}
}

// sendMail sends one message over SMTP and returns the server's error, if
// any (a *textproto.Error carries the SMTP code).
func sendMail(addr, from string, to []string, msg []byte) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := sendOn(c, from, to, msg); err != nil {
		return err
	}
	return c.Quit()
}

// sendOn sends one message on an open SMTP connection.
func sendOn(c *smtp.Client, from string, to []string, msg []byte) error {
	if err := c.Mail(from); err != nil {
		return err
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt); err != nil {
			_ = c.Reset()
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	return w.Close()
}

func mustSend(t testing.TB, srv *server.Server, to string, msg []byte) {
	t.Helper()
	if err := sendMail(srv.SMTPAddr(), "sender@example.org", []string{to}, msg); err != nil {
		t.Fatalf("send to %s: %v", to, err)
	}
}

// smtpCode extracts the SMTP reply code of an error.
func smtpCode(err error) int {
	var tpErr *textproto.Error
	if errors.As(err, &tpErr) {
		return tpErr.Code
	}
	return 0
}

// simpleMessage is a small text message.
func simpleMessage(to, subject string) []byte {
	return []byte("From: Sender <sender@example.org>\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nMessage-ID: <" + subject + "@example.org>\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\n\r\nHello " + subject + "\r\n")
}

// streamReader reads `data:` messages of an event stream.
type streamReader struct {
	resp  *http.Response
	lines *bufio.Scanner
}

func openStream(t testing.TB, srv *server.Server, hashes ...string) *streamReader {
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
	return &streamReader{resp: resp, lines: lines}
}

// next returns the next data message, or an error when the stream ends.
func (s *streamReader) next() (model.StreamEvent, error) {
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

// nextNotification skips heartbeats.
func (s *streamReader) nextNotification(t testing.TB) model.StreamEvent {
	t.Helper()
	for {
		ev, err := s.next()
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		if ev.IsNotification() {
			return ev
		}
	}
}

func startServer(t testing.TB, opts ...func(*server.Config)) (*server.Server, *api) {
	t.Helper()
	srv := servertest.Start(t, opts...)
	return srv, newAPI(t, srv)
}

// syncBuffer is a bytes.Buffer safe for concurrent writers (a log sink).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// withoutTrace checks that a stored message starts with the server's
// Received trace header and returns the message after it.
func withoutTrace(t testing.TB, raw []byte) []byte {
	t.Helper()
	line, rest, ok := bytes.Cut(raw, []byte("\r\n"))
	if !ok || !bytes.HasPrefix(line, []byte("Received: from ")) {
		t.Fatalf("stored message does not start with a Received header: %.200q", raw)
	}
	return rest
}
