package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/model"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":      0,
		"5":     5 * time.Second,
		" 2 ":   2 * time.Second,
		"0.5":   500 * time.Millisecond,
		"-3":    0,
		"soon":  0,
		"1e300": maxReportedRetryAfter,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Minute).Format(http.TimeFormat):     0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

func TestBackoff(t *testing.T) {
	c := &transport{opts: Options{RetryDelay: time.Second}}
	for n, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		if got := c.backoff(n, 0); got != want {
			t.Errorf("retry %d: %v, want %v", n, got, want)
		}
	}
	if got := c.backoff(0, 5*time.Second); got != 5*time.Second {
		t.Errorf("Retry-After longer than the backoff: %v", got)
	}
	if got := c.backoff(0, time.Hour); got != maxRetryAfter {
		t.Errorf("Retry-After not capped: %v", got)
	}
	if got := c.backoff(200, 0); got <= 0 {
		t.Errorf("overflowing backoff: %v", got)
	}
}

func TestUnwrapMessage(t *testing.T) {
	msg := []byte("From: a@b\r\nSubject: hi\r\n\r\nbody\r\n")
	once := []byte(base64.StdEncoding.EncodeToString(msg))
	twice := []byte(base64.StdEncoding.EncodeToString(once))
	for name, in := range map[string][]byte{"plain": msg, "once": once, "twice": twice} {
		if got := unwrapMessage(in); string(got) != string(msg) {
			t.Errorf("%s: %q", name, got)
		}
	}
	// Base64 of something that is not a message stays as it is.
	notMsg := []byte(base64.StdEncoding.EncodeToString([]byte("just some words")))
	if got := unwrapMessage(notMsg); string(got) != string(notMsg) {
		t.Errorf("non-message decoded: %q", got)
	}
	if looksLikeMessage([]byte("no header here\r\n")) || looksLikeMessage([]byte(": empty name")) || !looksLikeMessage([]byte("X-A: b")) {
		t.Error("looksLikeMessage")
	}
}

func TestParseISO8601(t *testing.T) {
	for _, s := range []string{"2026-11-21T14:25:43.993Z", "2026-11-21T14:25:43Z", "2026-11-21T14:25:43+01:00",
		"2026-11-21T13:25:43.995172566Z", "2026-11-21T14:25:43+0100", "2026-11-21T14:25:43"} {
		if _, err := ParseTimestamp(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{"", "tomorrow", "2026-11-21", "21/11/2026 14:25"} {
		if _, err := ParseTimestamp(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// sealedInbox is an encrypted inbox with its own keys and a sealer playing
// the server, for tests and benchmarks that need many payloads.
type sealedInbox struct {
	inbox  *Inbox
	sealer *crypto.Sealer
}

func newSealedInbox(tb testing.TB) sealedInbox {
	tb.Helper()
	kp, err := crypto.GenerateKeyPair()
	if err != nil {
		tb.Fatal(err)
	}
	key, err := crypto.GenerateSigningKey()
	if err != nil {
		tb.Fatal(err)
	}
	c, err := New("http://127.0.0.1:9", "k", WithRetries(0, 0))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	in := &Inbox{c: c, keyring: keyring{secretKey: kp.SecretKey, serverKey: key.PublicKey()}, info: model.Inbox{
		EmailAddress: "bench@sandbox.test", InboxHash: crypto.InboxHash(kp.PublicKey), Encrypted: true,
	}}
	if err := in.setOpener(crypto.DefaultContext); err != nil {
		tb.Fatal(err)
	}
	sealer, err := crypto.NewSealer(kp.PublicKey, key, crypto.DefaultContext)
	if err != nil {
		tb.Fatal(err)
	}
	return sealedInbox{inbox: in, sealer: sealer}
}

// records seals n records with content; record k was received k seconds
// after a base time, so newest-first order is descending k.
func (s sealedInbox) records(tb testing.TB, n int) []json.RawMessage {
	tb.Helper()
	base := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	body := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 30)
	out := make([]json.RawMessage, n)
	for k := range n {
		id := fmt.Sprintf("email-%05d", k)
		at := base.Add(time.Duration(k) * time.Second).Format(time.RFC3339Nano)
		meta, _ := json.Marshal(map[string]any{"id": id, "from": "Bench <bench@example.org>",
			"to": []string{"bench@sandbox.test"}, "subject": fmt.Sprintf("Message %d", k), "receivedAt": at})
		parsed, _ := json.Marshal(map[string]any{"text": body, "html": "<p>" + body + "</p>",
			"headers": map[string]string{"subject": fmt.Sprintf("Message %d", k)}, "links": []string{"https://example.org/x"},
			"attachments": []any{}, "authResults": map[string]any{"spf": map[string]string{"result": "pass"}}})
		pm, err := s.sealer.Seal(meta, []byte(id))
		if err != nil {
			tb.Fatal(err)
		}
		pp, err := s.sealer.Seal(parsed, []byte(id))
		if err != nil {
			tb.Fatal(err)
		}
		rec, _ := json.Marshal(model.EmailRecord{ID: id, InboxID: s.inbox.info.InboxHash, EncryptedMetadata: pm, EncryptedParsed: pp})
		out[k] = rec
	}
	return out
}

func TestOpenManyRecordsInParallel(t *testing.T) {
	s := newSealedInbox(t)
	raw := s.records(t, 24)
	// Corrupt one record's ciphertext and break another's JSON.
	var rec model.EmailRecord
	if err := json.Unmarshal(raw[5], &rec); err != nil {
		t.Fatal(err)
	}
	ct := []byte(rec.EncryptedParsed.Ciphertext)
	ct[3] ^= 'A' ^ 'B'
	if ct[3] == '-' || ct[3] == '_' {
		ct[3] = 'A'
	}
	rec.EncryptedParsed.Ciphertext = string(ct)
	raw[5], _ = json.Marshal(rec)
	raw[7] = json.RawMessage(`{"id":"email-00007","encryptedMetadata":"not an object"}`)

	body, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	emails, err := openBody(s.inbox, body)
	sortNewestFirst(emails)
	if len(emails) != len(raw) {
		t.Fatalf("%d emails", len(emails))
	}
	var decryption *DecryptionError
	if !errors.As(err, &decryption) || decryption.EmailID != "email-00005" {
		t.Fatalf("error %v", err)
	}
	// Newest first; the record without a time (its metadata is broken) last.
	want := len(raw) - 1
	for _, e := range emails[:len(emails)-1] {
		if want == 7 {
			want--
		}
		if e.ID != fmt.Sprintf("email-%05d", want) {
			t.Fatalf("got %s where email-%05d belongs", e.ID, want)
		}
		want--
	}
	byID := map[string]model.Email{}
	for _, e := range emails {
		byID[e.ID] = e
	}
	// Its metadata opened, so it keeps its subject; the content did not.
	if e := byID["email-00005"]; e.Problem != ProblemDecryptionFailed || e.Subject != "Message 5" || e.HasContent || e.Text != "" {
		t.Fatalf("corrupted record: %+v", e)
	}
	if e := byID["email-00007"]; e.Problem != ProblemUnreadable {
		t.Fatalf("broken record: %+v", e)
	}
	if e := byID["email-00012"]; e.Problem != "" || e.Subject != "Message 12" || !e.HasContent || e.AuthResults.SPF.Result != "pass" {
		t.Fatalf("good record: %+v", e)
	}
	if emails[len(emails)-1].ID != "email-00007" {
		t.Fatalf("email without a time not last: %s", emails[len(emails)-1].ID)
	}
}

// openBody decodes and opens a list body as Inbox.Emails does after the
// HTTP exchange, in list order.
func openBody(in *Inbox, body []byte) ([]model.Email, error) {
	return collectEmails(func(yield func(model.Email, error) error) error {
		return openRecords(in, bytes.NewReader(body), func() {}, func(e model.Email, err error) opened {
			return opened{e, err}
		}, func(o opened) error {
			return yield(o.email, o.err)
		})
	})
}

// A list body that is not a JSON array fails as a whole, with a clear
// error; a record of the wrong shape inside a good array costs only
// itself.
func TestListBodyErrors(t *testing.T) {
	s := newSealedInbox(t)
	for _, body := range []string{``, `{}`, `null`, `[1,]`, `[{"id":"a"}`, `[{"id": tru}]`, `["abc]`} {
		emails, err := openBody(s.inbox, []byte(body))
		if err == nil || !strings.Contains(err.Error(), "not a JSON array") {
			t.Errorf("%q: %d emails, %v", body, len(emails), err)
		}
	}
	emails, err := openBody(s.inbox, []byte(`[ 7, {"id":"b","encryptedMetadata":"not an object"} ]`))
	if len(emails) != 2 || emails[0].Problem != ProblemUnreadable || emails[1].ID != "b" || emails[1].Problem != ProblemUnreadable || err == nil {
		t.Fatalf("records of the wrong shape: %+v, %v", emails, err)
	}
	if emails, err := openBody(s.inbox, []byte(" [ ] ")); err != nil || len(emails) != 0 {
		t.Fatalf("empty list: %v, %v", emails, err)
	}
}

// A list of good records takes the same path and opens every record.
func TestOpenListAllGood(t *testing.T) {
	s := newSealedInbox(t)
	raw := s.records(t, 16)
	body, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	emails, err := openBody(s.inbox, body)
	if err != nil || len(emails) != len(raw) {
		t.Fatalf("%d emails, %v", len(emails), err)
	}
	for k, e := range emails {
		if e.Problem != "" || e.Subject != fmt.Sprintf("Message %d", k) || !e.HasContent {
			t.Fatalf("email %d: %+v", k, e)
		}
	}
}

// The registry the watch engine follows, background error reports,
// and the client context ended by Close with ErrClientClosed as its cause.
func TestRegistrySyncErrorsAndClose(t *testing.T) {
	var reported []error
	c, err := New("http://127.0.0.1:9", "k", WithOnSyncError(func(err error) { reported = append(reported, err) }))
	if err != nil {
		t.Fatal(err)
	}
	a := &Inbox{c: c, info: model.Inbox{EmailAddress: "a@x.test", InboxHash: "ha"}}
	b := &Inbox{c: c, info: model.Inbox{EmailAddress: "b@x.test", InboxHash: "hb"}}
	for _, in := range []*Inbox{a, b} {
		if err := c.loaded.add(in, false); err != nil {
			t.Fatal(err)
		}
	}
	var exists *InboxAlreadyExistsError
	other := &Inbox{c: c, info: model.Inbox{EmailAddress: "z@x.test", InboxHash: "hb"}}
	if err := c.loaded.add(other, false); !errors.As(err, &exists) {
		t.Fatalf("duplicate hash: %v", err)
	}
	if !c.loaded.has(b) || c.loaded.has(other) {
		t.Fatal("has")
	}
	if !c.Forget("A@X.TEST") || c.Forget("a@x.test") {
		t.Fatal("Forget")
	}
	if got := c.Inboxes(); len(got) != 1 || got[0] != b {
		t.Fatalf("inboxes %v", got)
	}
	c.loaded.clear()
	if len(c.Inboxes()) != 0 {
		t.Fatal("clear")
	}

	c.reportSyncError(errors.New("boom"))
	c.reportSyncError(nil)
	if len(reported) != 1 || reported[0].Error() != "boom" {
		t.Fatalf("reported %v", reported)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(context.Cause(c.ctx), ErrClientClosed) || !c.isClosed() {
		t.Fatal("Close did not end the client context")
	}
	c.reportSyncError(errors.New("after close"))
	if len(reported) != 1 {
		t.Fatalf("reported after Close: %v", reported)
	}
	if err := c.loaded.add(b, false); !errors.Is(err, ErrClientClosed) {
		t.Fatalf("register after Close: %v", err)
	}
}

// A wait returns its emails oldest first by receivedAt, then by id,
// whatever order they were found in.
func TestWaitResultOrder(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	w := &waiter{n: 4, matched: []model.Email{
		{ID: "c", ReceivedAt: at.Add(time.Second)},
		{ID: "b", ReceivedAt: at},
		{ID: "d", ReceivedAt: at.Add(2 * time.Second)},
		{ID: "a", ReceivedAt: at},
	}}
	var ids []string
	for _, e := range w.result() {
		ids = append(ids, e.ID)
	}
	if strings.Join(ids, "") != "abcd" {
		t.Fatalf("order %v, want a b c d", ids)
	}
	if w.matched[0].ID != "c" {
		t.Fatal("result reordered the waiter's own list")
	}
}

// A stream that cannot be opened because nothing listens is an *SSEError
// wrapping *NetworkError, never (nil, nil): the engine would read a nil body.
func TestOpenStreamOnDeadServer(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + listener.Addr().String()
	listener.Close()
	c, err := New(deadURL, "key", WithRetries(0, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body, err := engineClient{c}.OpenStream(context.Background(), []string{"h"})
	var sseErr *SSEError
	var network *NetworkError
	if body != nil || !errors.As(err, &sseErr) || !errors.As(err, &network) {
		t.Fatalf("OpenStream on a dead server: body %v, err %v; want an *SSEError wrapping *NetworkError", body, err)
	}
}
