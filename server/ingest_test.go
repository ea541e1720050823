package server_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/server"
)

func TestMalformedMailIsStored(t *testing.T) {
	srv, a := startServer(t)
	in := a.createPlain(nil)
	junk := make([]byte, 4096)
	_, _ = rand.Read(junk)
	junk = bytes.ReplaceAll(junk, []byte("\r\n.\r\n"), []byte("xxxxx")) // keep the data terminator out
	// Lines within SMTP's 2000 bytes, whatever the draw.
	for i := 1000; i < len(junk); i += 1000 {
		junk[i-2], junk[i-1] = '\r', '\n'
	}
	messages := map[string][]byte{
		"binary junk":           junk,
		"no headers":            []byte("just some text\r\nwithout any header\r\n"),
		"unterminated boundary": []byte("From: a@example.org\r\nSubject: broken\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\npart one\r\n"),
		"bad encodings":         []byte("From: =?bogus?Q?x?= <a@example.org>\r\nSubject: =?UTF-8?B?!!!?=\r\nContent-Transfer-Encoding: base64\r\n\r\n@@@not base64@@@\r\n"),
		"header only":           []byte("Subject: nothing else"),
	}
	for name, msg := range messages {
		if err := sendMail(srv.SMTPAddr(), "s@example.org", []string{in.EmailAddress}, msg); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	list := a.emails(in.EmailAddress, true)
	if len(list) != len(messages) {
		t.Fatalf("stored %d of %d malformed messages", len(list), len(messages))
	}
	for _, rec := range list {
		decodePlain(t, rec) // metadata and parsed are valid base64 JSON
		raw := a.raw(in.EmailAddress, rec.ID)
		if _, err := base64.StdEncoding.DecodeString(raw.Raw); err != nil {
			t.Fatalf("raw of %s: %v", rec.ID, err)
		}
	}
}

func TestTestEmailEndpointBothForms(t *testing.T) {
	srv, a := startServer(t)
	in := a.createPlain(nil)
	stream := openStream(t, srv, in.InboxHash)

	var created model.TestEmailResponse
	a.expect(http.StatusCreated, "POST", "/api/test/emails", map[string]any{
		"to": strings.ToUpper(in.EmailAddress), "subject": "Top level ✓", "text": "plain body", "html": "<b>html</b>",
		"spf": "softfail", "dkim": "fail", "dmarc": "none", "reverseDns": false,
	}, &created)
	if ev := stream.nextNotification(t); ev.EmailID != created.EmailID {
		t.Fatalf("stream announced %s, want %s", ev.EmailID, created.EmailID)
	}
	meta, parsed := decodePlain(t, a.email(in.EmailAddress, created.EmailID))
	auth := parsed.AuthResults
	if meta.Subject != "Top level ✓" || parsed.Text != "plain body" || !strings.Contains(parsed.HTML, "<b>html</b>") {
		t.Fatalf("content %+v %+v", meta, parsed)
	}
	if auth.SPF.Result != "softfail" || auth.DKIM[0].Result != "fail" || auth.DMARC.Result != "none" || auth.ReverseDNS.Result != "fail" {
		t.Fatalf("top-level auth %+v", auth)
	}

	a.expect(http.StatusCreated, "POST", "/api/test/emails", map[string]any{
		"to": in.EmailAddress, "auth": map[string]any{"spf": "pass", "dkim": "pass", "dmarc": "fail", "reverseDns": "none"},
	}, &created)
	meta, parsed = decodePlain(t, a.email(in.EmailAddress, created.EmailID))
	auth = parsed.AuthResults
	if meta.Subject != "Test Email" || parsed.Text != "Test email body" || meta.From == "" {
		t.Fatalf("defaults %+v %q", meta, parsed.Text)
	}
	if auth.SPF.Result != "pass" || auth.DKIM[0].Result != "pass" || auth.DMARC.Result != "fail" || auth.ReverseDNS.Result != "none" {
		t.Fatalf("nested auth %+v", auth)
	}
	raw := a.raw(in.EmailAddress, created.EmailID)
	decoded, _ := base64.StdEncoding.DecodeString(raw.Raw)
	if !bytes.HasPrefix(withoutTrace(t, decoded), []byte("From: ")) {
		t.Fatalf("raw of a test email is not the message itself: %q", decoded)
	}

	noAuth := a.createPlain(map[string]any{"emailAuth": false})
	a.expect(http.StatusCreated, "POST", "/api/test/emails", map[string]any{"to": noAuth.EmailAddress, "spf": "pass"}, &created)
	_, parsed = decodePlain(t, a.email(noAuth.EmailAddress, created.EmailID))
	if parsed.AuthResults.SPF.Result != "skipped" {
		t.Fatalf("emailAuth false inbox got %+v", parsed.AuthResults.SPF)
	}
}

func TestStreamHeartbeatsAndFiltering(t *testing.T) {
	srv, a := startServer(t, func(cfg *server.Config) { cfg.HeartbeatInterval = 50 * time.Millisecond })
	watched := a.createPlain(nil)
	other := a.createPlain(nil)
	stream := openStream(t, srv, watched.InboxHash)
	ev, err := stream.next()
	if err != nil || ev.Type != "heartbeat" || ev.IsNotification() {
		t.Fatalf("first message %+v (%v), want a heartbeat", ev, err)
	}
	mustSend(t, srv, other.EmailAddress, simpleMessage(other.EmailAddress, "not watched"))
	mustSend(t, srv, watched.EmailAddress, simpleMessage(watched.EmailAddress, "watched"))
	got := stream.nextNotification(t)
	if got.InboxID != watched.InboxHash {
		t.Fatalf("stream delivered an event of another inbox: %+v", got)
	}
}

func TestSlowSubscriberIsDroppedWithoutBlockingIngest(t *testing.T) {
	srv, a := startServer(t)
	in := a.createPlain(nil)
	events, cancel := srv.Events().Subscribe(2)
	defer cancel()
	for i := range 5 { // 10 events: received + stored each
		mustSend(t, srv, in.EmailAddress, simpleMessage(in.EmailAddress, fmt.Sprint(i)))
	}
	n := 0
	for range events {
		n++
	}
	if n != 2 {
		t.Fatalf("slow subscriber got %d events before being dropped, want its buffer of 2", n)
	}
	if a.sync(in.EmailAddress).EmailCount != 5 {
		t.Fatal("ingest lost mail while a subscriber was slow")
	}
}

func TestReceivedEventCarriesWebhookData(t *testing.T) {
	srv, a := startServer(t)
	in := a.createEncrypted(nil)
	events, cancel := srv.Events().Subscribe(16)
	defer cancel()
	mustSend(t, srv, in.EmailAddress, multipartMessage(in.EmailAddress))
	received := waitEvent(t, events, func(ev server.Event) bool { return ev.Type == model.EventEmailReceived })
	stored := waitEvent(t, events, func(ev server.Event) bool { return ev.Type == model.EventEmailStored })
	if stored.EmailID != received.EmailID || !received.Inbox.Encrypted {
		t.Fatalf("received %+v stored %+v", received, stored)
	}
	data, ok := received.ReceivedData()
	if !ok {
		t.Fatal("no webhook data on email.received")
	}
	if data.ID != "msg_"+received.EmailID || data.InboxID != in.InboxHash || data.InboxEmail != in.EmailAddress ||
		data.From.Address != "dana@example.org" || data.From.Name != "Dana Example" || len(data.To) != 1 ||
		len(data.CC) != 1 || data.Subject != "Grüße ✓ order" || !strings.HasPrefix(data.Snippet, "Grüße aus Köln") ||
		len(data.Attachments) != 1 || data.Attachments[0].Filename != "invoice.pdf" || data.Headers["message-id"] == "" ||
		data.Auth == nil || data.ReceivedAt == "" {
		t.Fatalf("webhook data %+v", data)
	}
}

func TestManyStreamClients(t *testing.T) {
	srv, a := startServer(t)
	in := a.createPlain(nil)
	const clients = 25
	streams := make([]*streamReader, clients)
	for i := range streams {
		streams[i] = openStream(t, srv, in.InboxHash)
	}
	mustSend(t, srv, in.EmailAddress, simpleMessage(in.EmailAddress, "broadcast"))
	id := a.emails(in.EmailAddress, false)[0].ID
	for i, s := range streams {
		if ev := s.nextNotification(t); ev.EmailID != id {
			t.Fatalf("client %d got %+v", i, ev)
		}
	}
}
