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
	"sandview/server/servertest"
)

func TestMalformedMailIsStored(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
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
		if err := servertest.SendMail(srv.SMTPAddr(), "s@example.org", []string{in.EmailAddress}, msg); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	list := a.Emails(in.EmailAddress, true)
	if len(list) != len(messages) {
		t.Fatalf("stored %d of %d malformed messages", len(list), len(messages))
	}
	for _, rec := range list {
		servertest.DecodePlain(t, rec) // metadata and parsed are valid base64 JSON
		raw := a.Raw(in.EmailAddress, rec.ID)
		if _, err := base64.StdEncoding.DecodeString(raw.Raw); err != nil {
			t.Fatalf("raw of %s: %v", rec.ID, err)
		}
	}
}

func TestTestEmailEndpointBothForms(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	stream := servertest.OpenStream(t, srv, in.InboxHash)

	var created model.TestEmailResponse
	a.Expect(http.StatusCreated, "POST", "/api/test/emails", map[string]any{
		"to": strings.ToUpper(in.EmailAddress), "subject": "Top level ✓", "text": "plain body", "html": "<b>html</b>",
		"spf": "softfail", "dkim": "fail", "dmarc": "none", "reverseDns": false,
	}, &created)
	if ev := stream.NextNotification(t); ev.EmailID != created.EmailID {
		t.Fatalf("stream announced %s, want %s", ev.EmailID, created.EmailID)
	}
	meta, parsed := servertest.DecodePlain(t, a.Email(in.EmailAddress, created.EmailID))
	auth := parsed.AuthResults
	if meta.Subject != "Top level ✓" || parsed.Text != "plain body" || !strings.Contains(parsed.HTML, "<b>html</b>") {
		t.Fatalf("content %+v %+v", meta, parsed)
	}
	if auth.SPF.Result != "softfail" || auth.DKIM[0].Result != "fail" || auth.DMARC.Result != "none" || auth.ReverseDNS.Result != "fail" {
		t.Fatalf("top-level auth %+v", auth)
	}

	a.Expect(http.StatusCreated, "POST", "/api/test/emails", map[string]any{
		"to": in.EmailAddress, "auth": map[string]any{"spf": "pass", "dkim": "pass", "dmarc": "fail", "reverseDns": "none"},
	}, &created)
	meta, parsed = servertest.DecodePlain(t, a.Email(in.EmailAddress, created.EmailID))
	auth = parsed.AuthResults
	if meta.Subject != "Test Email" || parsed.Text != "Test email body" || meta.From == "" {
		t.Fatalf("defaults %+v %q", meta, parsed.Text)
	}
	if auth.SPF.Result != "pass" || auth.DKIM[0].Result != "pass" || auth.DMARC.Result != "fail" || auth.ReverseDNS.Result != "none" {
		t.Fatalf("nested auth %+v", auth)
	}
	raw := a.Raw(in.EmailAddress, created.EmailID)
	decoded, _ := base64.StdEncoding.DecodeString(raw.Raw)
	if !bytes.HasPrefix(withoutTrace(t, decoded), []byte("From: ")) {
		t.Fatalf("raw of a test email is not the message itself: %q", decoded)
	}

	noAuth := a.CreatePlain(map[string]any{"emailAuth": false})
	a.Expect(http.StatusCreated, "POST", "/api/test/emails", map[string]any{"to": noAuth.EmailAddress, "spf": "pass"}, &created)
	_, parsed = servertest.DecodePlain(t, a.Email(noAuth.EmailAddress, created.EmailID))
	if parsed.AuthResults.SPF.Result != "skipped" {
		t.Fatalf("emailAuth false inbox got %+v", parsed.AuthResults.SPF)
	}
}

// TestTestEmailChoosesEveryCheck: each check of model.AuthResults.Checks
// is a property of the test endpoint's request, named by its key, at the
// top level and under auth: the email reports that check with the chosen
// result and every other check as pass (a check without its row in the
// endpoint's table fails here: the property is refused, or the check is
// not reported).
func TestTestEmailChoosesEveryCheck(t *testing.T) {
	_, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	results := func(body map[string]any) map[string]string {
		t.Helper()
		body["to"] = in.EmailAddress
		var created model.TestEmailResponse
		a.Expect(http.StatusCreated, "POST", "/api/test/emails", body, &created)
		_, parsed := servertest.DecodePlain(t, a.Email(in.EmailAddress, created.EmailID))
		got := map[string]string{}
		for _, c := range parsed.AuthResults.Checks() {
			if !c.Reported {
				t.Fatalf("%v: %s not reported", body, c.Name)
			}
			got[c.Key] = c.Result
		}
		return got
	}
	checks := model.AuthResults{}.Checks()
	for key, result := range results(map[string]any{}) {
		if result != model.ResultPass {
			t.Errorf("nothing chosen: %s is %q, want pass", key, result)
		}
	}
	for _, chosen := range checks {
		for _, body := range []map[string]any{{chosen.Key: model.ResultFail}, {"auth": map[string]any{chosen.Key: model.ResultFail}}} {
			got := results(body)
			for _, c := range checks {
				want := model.ResultPass
				if c.Key == chosen.Key {
					want = model.ResultFail
				}
				if got[c.Key] != want {
					t.Errorf("%v: %s is %q, want %q", body, c.Name, got[c.Key], want)
				}
			}
		}
	}
}

func TestStreamHeartbeatsAndFiltering(t *testing.T) {
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.HTTP.HeartbeatInterval = 50 * time.Millisecond })
	watched := a.CreatePlain(nil)
	other := a.CreatePlain(nil)
	stream := servertest.OpenStream(t, srv, watched.InboxHash)
	ev, err := stream.Next()
	if err != nil || ev.Type != "heartbeat" || ev.IsNotification() {
		t.Fatalf("first message %+v (%v), want a heartbeat", ev, err)
	}
	servertest.MustSend(t, srv, other.EmailAddress, servertest.SimpleMessage(other.EmailAddress, "not watched"))
	servertest.MustSend(t, srv, watched.EmailAddress, servertest.SimpleMessage(watched.EmailAddress, "watched"))
	got := stream.NextNotification(t)
	if got.InboxID != watched.InboxHash {
		t.Fatalf("stream delivered an event of another inbox: %+v", got)
	}
}

func TestSlowSubscriberIsDroppedWithoutBlockingIngest(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	events, cancel := srv.Events().Subscribe(2)
	defer cancel()
	for i := range 5 { // 10 events: received + stored each
		servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, fmt.Sprint(i)))
	}
	n := 0
	for range events {
		n++
	}
	if n != 2 {
		t.Fatalf("slow subscriber got %d events before being dropped, want its buffer of 2", n)
	}
	if a.Sync(in.EmailAddress).EmailCount != 5 {
		t.Fatal("ingest lost mail while a subscriber was slow")
	}
}

func TestReceivedEventCarriesWebhookData(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreateEncrypted(nil)
	events, cancel := srv.Events().Subscribe(16)
	defer cancel()
	servertest.MustSend(t, srv, in.EmailAddress, multipartMessage(in.EmailAddress))
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
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	const clients = 25
	streams := make([]*servertest.StreamReader, clients)
	for i := range streams {
		streams[i] = servertest.OpenStream(t, srv, in.InboxHash)
	}
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "broadcast"))
	id := a.Emails(in.EmailAddress, false)[0].ID
	for i, s := range streams {
		if ev := s.NextNotification(t); ev.EmailID != id {
			t.Fatalf("client %d got %+v", i, ev)
		}
	}
}
