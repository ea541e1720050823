package client_test

// Proof against a real deployment: the recorded traffic of the reference
// deployment (testdata/reference-deployment) is replayed by an
// httptest server, so the inbox is imported and its mail read through the
// public API exactly as against that deployment.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/crypto"
	"sandview/model"
)

const fixtureDir = "testdata/reference-deployment"

const (
	encAddress    = "2546bf79@sandbox.test"
	encHash       = "WnYOP8FjHToQsqQgrOcIDkM6_NjZqDwHEyJkyyfQdsQ"
	encEmailID    = "680d94c3-fea2-4803-a4cb-16359d620e7d"
	encSubject    = "Réinitialisez votre mot de passe — 你好"
	plainAddress  = "957d0b34@sandbox.test"
	plainHash     = "8yUQah5xkEabhENX1sF_h-U0arqd2ZMmSdfiaadvcZM"
	plainSMTPID   = "b21693f4-c0da-4adb-8831-5b884e8d6412"
	plainTestID   = "7dda97a2-29f6-4f55-bdb1-3df50d09e8f2"
	replayAPIKey  = "replay-key"
	fixtureSigKey = "1GzeR8W2OyGkiG5M28qC2dn7uFGR1RDuRR7Bt_eb9-fg"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return b
}

// replay serves recorded answers by path. serverInfo replaces the recorded
// server-info when non-nil.
func replay(t testing.TB, serverInfo []byte) *httptest.Server {
	t.Helper()
	if serverInfo == nil {
		serverInfo = readFixture(t, "server-info.json")
	}
	routes := map[string][]byte{
		"/api/server-info":                                                 serverInfo,
		"/api/inboxes/" + encAddress + "/emails":                           readFixture(t, "encrypted-emails-list.json"),
		"/api/inboxes/" + encAddress + "/emails/" + encEmailID:             readFixture(t, "encrypted-email.json"),
		"/api/inboxes/" + encAddress + "/emails/" + encEmailID + "/raw":    readFixture(t, "encrypted-email-raw.json"),
		"/api/inboxes/" + encAddress + "/sync":                             readFixture(t, "encrypted-inbox-sync.json"),
		"/api/inboxes/" + plainAddress + "/emails":                         readFixture(t, "plain-emails-list.json"),
		"/api/inboxes/" + plainAddress + "/emails/" + plainSMTPID + "/raw": readFixture(t, "plain-smtp-email-raw.json"),
		"/api/inboxes/" + plainAddress + "/emails/" + plainTestID + "/raw": readFixture(t, "plain-test-email-raw.json"),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != replayAPIKey {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		body, ok := routes[r.URL.Path]
		if !ok || r.Method != http.MethodGet {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"Email not found","error":"Not Found","statusCode":404}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newReplayClient(t testing.TB, srv *httptest.Server) *client.Client {
	t.Helper()
	c, err := client.New(srv.URL, replayAPIKey, client.WithRetries(0, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// loadEncryptedFixture imports the recorded export into a replay client.
func loadEncryptedFixture(t testing.TB) *client.Inbox {
	t.Helper()
	c := newReplayClient(t, replay(t, nil))
	in, err := c.ImportInbox(context.Background(), readFixture(t, "encrypted-inbox-export.json"))
	if err != nil {
		t.Fatalf("import recorded export: %v", err)
	}
	return in
}

// loadPlainFixture loads the recorded plain inbox from its create answer.
func loadPlainFixture(t testing.TB) *client.Inbox {
	t.Helper()
	var created model.Inbox
	if err := json.Unmarshal(readFixture(t, "plain-inbox-create.json"), &created); err != nil {
		t.Fatal(err)
	}
	c := newReplayClient(t, replay(t, nil))
	in, err := c.ImportInboxData(context.Background(), model.ExportedInbox{
		Version:      1,
		EmailAddress: created.EmailAddress,
		ExpiresAt:    created.ExpiresAt.Format(time.RFC3339Nano),
		InboxHash:    created.InboxHash,
		Encrypted:    created.Encrypted,
		ExportedAt:   time.Now().Format(time.RFC3339),
	})
	if err != nil {
		t.Fatalf("import plain inbox: %v", err)
	}
	return in
}

func TestFixtureImportRecordedExport(t *testing.T) {
	in := loadEncryptedFixture(t)
	if in.Address() != encAddress || in.Hash() != encHash || !in.Encrypted() {
		t.Fatalf("imported %s/%s encrypted=%v", in.Address(), in.Hash(), in.Encrypted())
	}
	want := time.Date(2026, 11, 21, 14, 25, 43, 993e6, time.UTC)
	if !in.ExpiresAt().Equal(want) {
		t.Fatalf("expiresAt %v, want %v", in.ExpiresAt(), want)
	}
	exp, err := in.Export()
	if err != nil {
		t.Fatal(err)
	}
	if exp.EmailAuth == nil || !*exp.EmailAuth {
		t.Fatalf("emailAuth of the SDK's export not kept: %v", exp.EmailAuth)
	}
	if !strings.HasPrefix(exp.ServerSigPk, fixtureSigKey) {
		t.Fatal("server key not pinned from the export")
	}
}

// checkRecordedEncryptedMail asserts the values of the recorded SMTP mail.
func checkRecordedEncryptedMail(t *testing.T, e model.Email, withContent bool) {
	t.Helper()
	if e.Problem != "" {
		t.Fatalf("problem %q", e.Problem)
	}
	if e.ID != encEmailID || e.InboxHash != encHash {
		t.Errorf("id %q inbox %q", e.ID, e.InboxHash)
	}
	if e.Subject != encSubject {
		t.Errorf("subject %q", e.Subject)
	}
	if e.From != `"Bob Sender" <bob@example.org>` {
		t.Errorf("from %q", e.From)
	}
	if len(e.To) != 1 || e.To[0] != encAddress {
		t.Errorf("to %q", e.To)
	}
	if want := time.Date(2026, 11, 21, 13, 25, 45, 695e6, time.UTC); !e.ReceivedAt.Equal(want) {
		t.Errorf("receivedAt %v (the record has none: must come from the metadata)", e.ReceivedAt)
	}
	if e.HasContent != withContent {
		t.Fatalf("HasContent %v", e.HasContent)
	}
	if !withContent {
		return
	}
	if e.Text != "Hello Bob,\nReset here: https://example.org/reset?token=abc123\nThanks — 你好世界\n" {
		t.Errorf("text %q", e.Text)
	}
	if !strings.Contains(e.HTML, `<a href="https://example.org/reset?token=abc123">Reset</a> — 你好世界`) {
		t.Errorf("html %q", e.HTML)
	}
	if len(e.Links) != 1 || e.Links[0] != "https://example.org/reset?token=abc123" {
		t.Errorf("links %q", e.Links)
	}
	if len(e.Attachments) != 1 {
		t.Fatalf("attachments %d", len(e.Attachments))
	}
	a := e.Attachments[0]
	if a.Filename != "invoice.pdf" || a.ContentType != "application/pdf" || a.Size != 14 ||
		string(a.Content) != "%PDF-1.4 fake\n" || a.Checksum != "e6ef8ff997dc12a18ac9f7ffb76d6f6e" {
		t.Errorf("attachment %+v content %q", a, a.Content)
	}
	for name, want := range map[string]string{
		"from":         `"Bob Sender" <bob@example.org>`,
		"cc":           "carol@example.net",
		"x-trace":      "fixture-1",
		"subject":      encSubject,
		"content-type": "multipart/mixed; boundary================2476698046337258199==",
	} {
		if got := e.Headers[name]; got != want {
			t.Errorf("header %s = %q, want %q", name, got, want)
		}
	}
	if e.AuthResults.SPF == nil || e.AuthResults.SPF.Result != model.ResultSkipped ||
		len(e.AuthResults.DKIM) != 1 || e.AuthResults.DKIM[0].Result != model.ResultSkipped {
		t.Errorf("auth results %+v", e.AuthResults)
	}
	if v := e.AuthResults.Validate(); v.Passed || len(v.Failures) != 0 {
		t.Errorf("skipped checks must not pass nor fail: %+v", v)
	}
}

func TestFixtureEncryptedList(t *testing.T) {
	in := loadEncryptedFixture(t)
	emails, err := in.Emails(context.Background(), client.ListOptions{IncludeContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(emails) != 1 {
		t.Fatalf("%d emails", len(emails))
	}
	checkRecordedEncryptedMail(t, emails[0], true)
}

func TestFixtureEncryptedSingleRawAndSync(t *testing.T) {
	in := loadEncryptedFixture(t)
	ctx := context.Background()
	e, err := in.Email(ctx, encEmailID)
	if err != nil {
		t.Fatal(err)
	}
	checkRecordedEncryptedMail(t, e, true)

	raw, err := in.Raw(ctx, encEmailID)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	if !strings.HasPrefix(text, "Received: from [127.0.0.1]") || !strings.Contains(text, "\r\nX-Trace: fixture-1\r\n") {
		t.Fatalf("raw not decoded to the RFC 5322 source: %.200q", text)
	}

	st, err := in.SyncStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.EmailCount != 1 || st.EmailsHash != "DJsng2TAF0gjBRSBZvIgxW0Ci85bgp9HKDFk3kBaifA" {
		t.Fatalf("sync %+v", st)
	}

	_, err = in.Email(ctx, "no-such-email")
	var notFound *client.EmailNotFoundError
	if !errors.As(err, &notFound) || notFound.ID != "no-such-email" {
		t.Fatalf("unknown email: %v", err)
	}
}

// readStream parses a recorded event stream: `id:` lines, `data:` lines
// decoded as stream events.
func readStream(t *testing.T, name string) (ids []string, events []model.StreamEvent) {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id:"):
			ids = append(ids, strings.TrimSpace(strings.TrimPrefix(line, "id:")))
		case strings.HasPrefix(line, "data:"):
			var ev model.StreamEvent
			if err := json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(line, "data:"))), &ev); err != nil {
				t.Fatalf("data line: %v", err)
			}
			events = append(events, ev)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ids, events
}

func TestFixtureEncryptedEventStream(t *testing.T) {
	in := loadEncryptedFixture(t)
	ids, events := readStream(t, "encrypted-event-stream.txt")
	if len(ids) != 1 || ids[0] != "1" || len(events) != 1 || !events[0].IsNotification() {
		t.Fatalf("ids %q events %d", ids, len(events))
	}
	e, err := in.OpenStreamEvent(events[0])
	if err != nil {
		t.Fatal(err)
	}
	checkRecordedEncryptedMail(t, e, false)
}

func TestFixturePlainListRawAndStream(t *testing.T) {
	in := loadPlainFixture(t)
	if in.Encrypted() || in.Hash() != plainHash || in.Hash() != crypto.PlainInboxHash(plainAddress) {
		t.Fatalf("plain inbox %s encrypted=%v", in.Hash(), in.Encrypted())
	}
	ctx := context.Background()
	emails, err := in.Emails(ctx, client.ListOptions{IncludeContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(emails) != 2 {
		t.Fatalf("%d emails", len(emails))
	}
	// Newest first: the test-endpoint mail arrived 59 ms after the SMTP one.
	test, smtp := emails[0], emails[1]
	if test.ID != plainTestID || smtp.ID != plainSMTPID {
		t.Fatalf("order %s, %s", test.ID, smtp.ID)
	}

	if smtp.Subject != "Your order #1042 has shipped" || smtp.From != `"Dana Example" <dana@example.org>` ||
		len(smtp.To) != 1 || smtp.To[0] != plainAddress {
		t.Errorf("smtp mail %q from %q to %q", smtp.Subject, smtp.From, smtp.To)
	}
	if smtp.Envelope != nil || test.Envelope != nil {
		t.Errorf("the reference service sends no envelope, yet the client made one: %+v %+v", smtp.Envelope, test.Envelope)
	}
	if smtp.Text != "Track it at https://example.org/track/1042\n" || len(smtp.Links) != 1 || smtp.Links[0] != "https://example.org/track/1042" {
		t.Errorf("text %q links %q", smtp.Text, smtp.Links)
	}
	if smtp.Headers["from"] != `"Dana Example" <dana@example.org>` ||
		smtp.Headers["content-type"] != "multipart/mixed; boundary================8407316161656948153==" {
		t.Errorf("headers %q", smtp.Headers)
	}
	if len(smtp.Attachments) != 1 || smtp.Attachments[0].Filename != "order.csv" ||
		string(smtp.Attachments[0].Content) != "order,qty\n1042,2\n" || smtp.Attachments[0].Size != 17 ||
		smtp.Attachments[0].Checksum != "27a0686bca5d91d3c6ab0d316f9c111f" {
		t.Errorf("attachments %+v", smtp.Attachments)
	}

	if test.Subject != "Auth mix" || test.Text != "test body" || test.HTML != "" || len(test.Links) != 0 {
		t.Errorf("test mail %q %q %q %q", test.Subject, test.Text, test.HTML, test.Links)
	}
	v := test.AuthResults.Validate()
	if v.Passed || v.SPFPassed || !v.DKIMPassed || v.DMARCPassed || v.ReverseDNSPassed || len(v.Failures) != 3 {
		t.Errorf("auth mix validation %+v", v)
	}
	if test.AuthResults.SPF.Result != model.ResultSoftfail || test.AuthResults.DMARC.Result != model.ResultFail ||
		test.AuthResults.ReverseDNS.Result != model.ResultNone {
		t.Errorf("auth results %+v", test.AuthResults)
	}

	raw, err := in.Raw(ctx, plainSMTPID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), "Received: from [127.0.0.1]") || !strings.Contains(string(raw), "Subject: Your order #1042 has shipped\r\n") {
		t.Errorf("smtp raw %.120q", raw)
	}
	raw, err = in.Raw(ctx, plainTestID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), "From: test@vaultsandbox.test\r\n") || !strings.HasSuffix(string(raw), "\r\n\r\ntest body\r\n") {
		t.Errorf("twice-encoded raw not decoded twice: %.120q", raw)
	}

	ids, events := readStream(t, "plain-event-stream.txt")
	if len(ids) != 2 || len(events) != 2 {
		t.Fatalf("ids %q events %d", ids, len(events))
	}
	first, err := in.OpenStreamEvent(events[0])
	if err != nil {
		t.Fatal(err)
	}
	second, err := in.OpenStreamEvent(events[1])
	if err != nil {
		t.Fatal(err)
	}
	if first.ID != plainSMTPID || first.Subject != "Your order #1042 has shipped" || first.HasContent ||
		second.ID != plainTestID || second.Subject != "Auth mix" || second.From != "test@vaultsandbox.test" {
		t.Errorf("stream emails %+v / %+v", first, second)
	}
}

func TestFixtureHeartbeatIsNotAnEmail(t *testing.T) {
	in := loadPlainFixture(t)
	var ev model.StreamEvent
	if err := json.Unmarshal([]byte(`{"type":"heartbeat","timestamp":1763731555}`), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.IsNotification() {
		t.Fatal("heartbeat taken for a notification")
	}
	if _, err := in.OpenStreamEvent(ev); err == nil {
		t.Fatal("heartbeat opened as an email")
	}
}

// A server that rotated its key: the export pins the old one, so the import
// (server reachable) is refused with ERROR_SERVER_KEY_MISMATCH.
func TestFixtureImportWithAnotherServerKeyIsRefused(t *testing.T) {
	other, err := crypto.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	c := newReplayClient(t, replay(t, serverInfoWithKey(t, crypto.EncodeBase64URL(other.PublicKey()), true)))
	_, err = c.ImportInbox(context.Background(), readFixture(t, "encrypted-inbox-export.json"))
	var invalid *client.InvalidImportDataError
	if !errors.As(err, &invalid) || invalid.Code != client.ErrCodeServerKeyMismatch {
		t.Fatalf("got %v, want %s", err, client.ErrCodeServerKeyMismatch)
	}
	if len(c.Inboxes()) != 0 {
		t.Fatal("refused inbox was loaded")
	}
}

// An export pinning another key than the one the payloads carry: every
// email is listed with the one generic Problem "decryption failed"
// (SECURITY.md) and the error, which reads the same, is a
// *ServerKeyMismatchError (and so a *SignatureVerificationError).
func TestFixturePinnedKeyMismatchMarksEmails(t *testing.T) {
	other, err := crypto.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	otherKey := crypto.EncodeBase64URL(other.PublicKey())
	c := newReplayClient(t, replay(t, serverInfoWithKey(t, otherKey, true)))
	var d model.ExportedInbox
	if err := json.Unmarshal(readFixture(t, "encrypted-inbox-export.json"), &d); err != nil {
		t.Fatal(err)
	}
	d.ServerSigPk = otherKey
	in, err := c.ImportInboxData(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	emails, err := in.Emails(context.Background(), client.ListOptions{IncludeContent: true})
	if len(emails) != 1 || emails[0].Problem != client.ProblemDecryptionFailed || emails[0].ID != encEmailID {
		t.Fatalf("emails %+v", emails)
	}
	var mismatch *client.ServerKeyMismatchError
	var sig *client.SignatureVerificationError
	if !errors.As(err, &mismatch) || !errors.As(err, &sig) || !errors.Is(err, crypto.ErrServerKeyMismatch) {
		t.Fatalf("error %v", err)
	}
	if strings.Contains(strings.ToLower(err.Error()), "key") || !strings.Contains(err.Error(), "decryption failed") {
		t.Fatalf("a key swap reads %q, not the one generic decryption failed", err)
	}
}

// Without the deployment's context string the payloads cannot be opened:
// the emails are listed with Problem "decryption failed".
func TestFixtureWrongContextFailsDecryption(t *testing.T) {
	c := newReplayClient(t, replay(t, serverInfoWithKey(t, "", false)))
	in, err := c.ImportInbox(context.Background(), readFixture(t, "encrypted-inbox-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	emails, err := in.Emails(context.Background(), client.ListOptions{})
	if len(emails) != 1 || emails[0].Problem != client.ProblemDecryptionFailed {
		t.Fatalf("emails %+v", emails)
	}
	var decryption *client.DecryptionError
	if !errors.As(err, &decryption) || decryption.EmailID != encEmailID || err.Error() != "decryption failed" {
		t.Fatalf("error %v", err)
	}
}

// serverInfoWithKey returns the recorded server-info with another key
// (when key != "") and with or without its context field.
func serverInfoWithKey(t testing.TB, key string, keepContext bool) []byte {
	t.Helper()
	var info map[string]any
	if err := json.Unmarshal(readFixture(t, "server-info.json"), &info); err != nil {
		t.Fatal(err)
	}
	if key != "" {
		info["serverSigPk"] = key
	}
	if !keepContext {
		delete(info, "context")
	}
	b, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The import's key check needs the server; offline the inbox is imported
// unchecked, and its mail opens once the server is back.
func TestFixtureImportOffline(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	c, err := client.New(deadURL, replayAPIKey, client.WithRetries(0, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	in, err := c.ImportInbox(context.Background(), readFixture(t, "encrypted-inbox-export.json"))
	if err != nil {
		t.Fatalf("offline import: %v", err)
	}
	// Offline the keys are still parsed: a malformed one fails the import.
	m := validExport(t)
	m["emailAddress"] = "other@sandbox.test"
	m["inboxHash"] = "other"
	m["secretKey"] = crypto.EncodeBase64URL(append(make([]byte, crypto.KEMSecretKeySize-1), 1))
	var invalid *client.InvalidImportDataError
	if _, err := c.ImportInbox(context.Background(), mustJSON(t, m)); !errors.As(err, &invalid) || invalid.Code != client.ErrCodeInvalidSecretKey {
		t.Fatalf("offline import of a bad key: %v", err)
	}
	_, err = in.Emails(context.Background(), client.ListOptions{})
	var network *client.NetworkError
	if !errors.As(err, &network) || !strings.Contains(err.Error(), "is the server running?") {
		t.Fatalf("listing offline: %v", err)
	}
}
