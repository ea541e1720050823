package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// multipartMessage has a unicode subject and body, an HTML part with a
// link and a PDF attachment.
func multipartMessage(to string) []byte {
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 fake document"))
	return []byte(strings.Join([]string{
		`From: "Dana Example" <dana@example.org>`,
		"To: " + to,
		"Cc: Carol <carol@example.org>",
		"Subject: =?UTF-8?B?" + base64.StdEncoding.EncodeToString([]byte("Grüße ✓ order")) + "?=",
		"Message-ID: <order-1042@example.org>",
		"Date: Sat, 21 Nov 2026 10:00:00 +0000",
		"MIME-Version: 1.0",
		`Content-Type: multipart/mixed; boundary="outer"`,
		"",
		"--outer",
		`Content-Type: multipart/alternative; boundary="inner"`,
		"",
		"--inner",
		"Content-Type: text/plain; charset=utf-8",
		"Content-Transfer-Encoding: 8bit",
		"",
		"Grüße aus Köln ✓ https://example.org/track/1042",
		"--inner",
		"Content-Type: text/html; charset=utf-8",
		"",
		`<p>Grüße <a href="https://example.org/track/1042">track</a></p>`,
		"--inner--",
		"--outer",
		`Content-Type: application/pdf; name="invoice.pdf"`,
		`Content-Disposition: attachment; filename="invoice.pdf"`,
		"Content-Transfer-Encoding: base64",
		"",
		pdf,
		"--outer--",
		"",
	}, "\r\n"))
}

func TestPlainInboxReceivesMultipartMail(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	if in.Encrypted || in.ServerSigPk != "" || !in.EmailAuth || in.InboxHash != crypto.PlainInboxHash(in.EmailAddress) {
		t.Fatalf("plain inbox %+v", in)
	}
	stream := servertest.OpenStream(t, srv, in.InboxHash)
	msg := multipartMessage(in.EmailAddress)
	servertest.MustSend(t, srv, strings.ToUpper(in.EmailAddress), msg)

	ev := stream.NextNotification(t)
	if ev.InboxID != in.InboxHash || ev.Metadata == "" || ev.EncryptedMetadata != nil {
		t.Fatalf("stream event %+v", ev)
	}
	var streamMeta model.EmailMetadata
	servertest.DecodeB64JSON(t, ev.Metadata, &streamMeta)
	if streamMeta.Subject != "Grüße ✓ order" {
		t.Fatalf("stream metadata %+v", streamMeta)
	}

	list := a.Emails(in.EmailAddress, false)
	if len(list) != 1 || list[0].ID != ev.EmailID || list[0].Parsed != "" || list[0].IsRead || list[0].InboxID != in.InboxHash {
		t.Fatalf("list without content: %+v", list)
	}
	rec := a.Email(in.EmailAddress, ev.EmailID)
	meta, parsed := servertest.DecodePlain(t, rec)
	if meta.From != `"Dana Example" <dana@example.org>` && meta.From != "Dana Example <dana@example.org>" {
		t.Errorf("from %q", meta.From)
	}
	if len(meta.To) != 1 || meta.To[0] != in.EmailAddress || meta.Subject != "Grüße ✓ order" || meta.ReceivedAt == "" {
		t.Errorf("metadata %+v", meta)
	}
	if !strings.Contains(parsed.Text, "Grüße aus Köln ✓") || !strings.Contains(parsed.HTML, "<a href") {
		t.Errorf("bodies %q / %q", parsed.Text, parsed.HTML)
	}
	if len(parsed.Attachments) != 1 || parsed.Attachments[0].Filename != "invoice.pdf" ||
		string(parsed.Attachments[0].Content) != "%PDF-1.4 fake document" || parsed.Attachments[0].ContentType != "application/pdf" {
		t.Errorf("attachments %+v", parsed.Attachments)
	}
	if !strings.Contains(strings.Join(parsed.Links, " "), "https://example.org/track/1042") {
		t.Errorf("links %v", parsed.Links)
	}
	if parsed.Headers["message-id"] == "" {
		t.Errorf("headers %v", parsed.Headers)
	}
	if parsed.AuthResults.SPF == nil || parsed.AuthResults.DMARC == nil || len(parsed.AuthResults.DKIM) == 0 || parsed.AuthResults.ReverseDNS == nil {
		t.Errorf("auth results missing: %+v", parsed.AuthResults)
	}
	raw := a.Raw(in.EmailAddress, ev.EmailID)
	decoded, err := base64.StdEncoding.DecodeString(raw.Raw)
	if err != nil || !bytes.Equal(withoutTrace(t, decoded), msg) {
		t.Fatalf("raw %q (err %v), want the sent message", decoded, err)
	}

	a.Expect(http.StatusNoContent, "PATCH", "/api/inboxes/"+in.EmailAddress+"/emails/"+ev.EmailID+"/read", nil, nil)
	if !a.Email(in.EmailAddress, ev.EmailID).IsRead {
		t.Fatal("email not marked read")
	}
}

func TestEncryptedInboxPayloadsOpen(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	var info model.ServerInfo
	a.Expect(http.StatusOK, "GET", "/api/server-info", nil, &info)
	if info.ServerSigPk != srv.ServerSigPk() || info.Context != crypto.DefaultContext || info.EncryptionPolicy != "enabled" ||
		info.MaxTTL != 604800 || info.DefaultTTL != 3600 || strings.Join(info.AllowedDomains, ",") != "sandbox.test,localhost" ||
		info.Algs != crypto.DefaultAlgs() {
		t.Fatalf("server info %+v", info)
	}
	in := a.CreateEncrypted(map[string]any{"emailAddress": "Secret@Sandbox.Test", "ttl": 120})
	if !in.Encrypted || in.EmailAddress != "secret@sandbox.test" || in.ServerSigPk != srv.ServerSigPk() ||
		in.InboxHash != crypto.InboxHash(in.Keys.PublicKey) {
		t.Fatalf("encrypted inbox %+v", in.Inbox)
	}
	stream := servertest.OpenStream(t, srv, "unknown-hash", in.InboxHash)
	msg := multipartMessage(in.EmailAddress)
	servertest.MustSend(t, srv, in.EmailAddress, msg)
	ev := stream.NextNotification(t)
	if ev.EncryptedMetadata == nil || ev.Metadata != "" || ev.InboxID != in.InboxHash {
		t.Fatalf("stream event %+v", ev)
	}

	pinned, err := crypto.DecodeBase64URL(in.ServerSigPk)
	if err != nil {
		t.Fatal(err)
	}
	opener, err := crypto.NewOpener(in.Keys.SecretKey, pinned, info.Context)
	if err != nil {
		t.Fatal(err)
	}
	open := func(p *crypto.Payload, out any) []byte {
		t.Helper()
		if p == nil {
			t.Fatal("missing payload")
		}
		plain, err := opener.Open(p)
		if err != nil {
			t.Fatalf("open payload: %v", err)
		}
		if out != nil {
			if err := json.Unmarshal(plain, out); err != nil {
				t.Fatalf("payload JSON %s: %v", plain, err)
			}
		}
		return plain
	}
	var streamMeta model.EmailMetadata
	open(ev.EncryptedMetadata, &streamMeta)

	list := a.Emails(in.EmailAddress, true)
	if len(list) != 1 || list[0].EncryptedParsed == nil || list[0].Metadata != "" {
		t.Fatalf("list %+v", list)
	}
	rec := a.Email(in.EmailAddress, ev.EmailID)
	var meta model.EmailMetadata
	var parsed model.ParsedContent
	open(rec.EncryptedMetadata, &meta)
	open(rec.EncryptedParsed, &parsed)
	if meta.Subject != "Grüße ✓ order" || streamMeta.Subject != meta.Subject {
		t.Errorf("metadata %+v", meta)
	}
	if len(parsed.Attachments) != 1 || !strings.Contains(parsed.Text, "Köln") {
		t.Errorf("parsed %+v", parsed)
	}
	aad, _ := crypto.DecodeBase64URL(rec.EncryptedMetadata.AAD)
	if string(aad) != "service:metadata" {
		t.Errorf("metadata aad %q", aad)
	}
	raw := a.Raw(in.EmailAddress, ev.EmailID)
	if raw.Raw != "" {
		t.Fatal("encrypted raw record carries plaintext")
	}
	// The raw payload is base64 text of the message, as on the reference
	// deployment.
	got, err := base64.StdEncoding.DecodeString(string(open(raw.EncryptedRaw, nil)))
	if err != nil || !bytes.Equal(withoutTrace(t, got), msg) {
		t.Fatalf("raw plaintext %q (%v), want base64 of the sent message", got, err)
	}
	// Another key cannot open it.
	other, _ := crypto.GenerateKeyPair()
	wrong, _ := crypto.NewOpener(other.SecretKey, pinned, info.Context)
	if _, err := wrong.Open(rec.EncryptedMetadata); err == nil {
		t.Fatal("payload opened with another key")
	}
}

func TestOneMessageToSeveralInboxesIsStoredOncePerInbox(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	plain := a.CreatePlain(nil)
	enc := a.CreateEncrypted(nil)
	noAuth := a.CreatePlain(map[string]any{"emailAuth": false})
	to := []string{plain.EmailAddress, enc.EmailAddress, noAuth.EmailAddress, plain.EmailAddress}
	if err := servertest.SendMail(srv.SMTPAddr(), "sender@example.org", to, servertest.SimpleMessage(plain.EmailAddress, "fanout")); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{plain.EmailAddress, enc.EmailAddress, noAuth.EmailAddress} {
		if n := a.Sync(addr).EmailCount; n != 1 {
			t.Fatalf("%s holds %d emails, want 1", addr, n)
		}
	}
	_, parsed := servertest.DecodePlain(t, a.Emails(noAuth.EmailAddress, true)[0])
	auth := parsed.AuthResults
	if auth.SPF.Result != "skipped" || auth.DMARC.Result != "skipped" || auth.ReverseDNS.Result != "skipped" || auth.DKIM[0].Result != "skipped" {
		t.Fatalf("emailAuth false inbox got %+v", auth)
	}
}

func TestSyncHash(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	empty := a.Sync(in.EmailAddress)
	if empty.EmailCount != 0 || empty.EmailsHash == "" || a.Sync(in.EmailAddress) != empty {
		t.Fatalf("empty sync %+v", empty)
	}
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "one"))
	one := a.Sync(in.EmailAddress)
	if one.EmailCount != 1 || one.EmailsHash == empty.EmailsHash {
		t.Fatalf("after one email %+v", one)
	}
	id := a.Emails(in.EmailAddress, false)[0].ID
	a.Expect(http.StatusNoContent, "PATCH", "/api/inboxes/"+in.EmailAddress+"/emails/"+id+"/read", nil, nil)
	if a.Sync(in.EmailAddress) != one {
		t.Fatal("marking read changed the sync status")
	}
	a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+in.EmailAddress+"/emails/"+id, nil, nil)
	if got := a.Sync(in.EmailAddress); got != empty {
		t.Fatalf("after deleting: %+v, want %+v", got, empty)
	}
}

func TestListIsNewestFirst(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	for _, s := range []string{"first", "second", "third"} {
		servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, s))
	}
	var subjects []string
	for _, rec := range a.Emails(in.EmailAddress, false) {
		meta, _ := servertest.DecodePlain(t, rec)
		subjects = append(subjects, meta.Subject)
	}
	if strings.Join(subjects, ",") != "third,second,first" {
		t.Fatalf("order %v", subjects)
	}
}

func TestDeleteInboxesAndEmails(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	events, cancel := srv.Events().Subscribe(64)
	defer cancel()
	one := a.CreatePlain(nil)
	two := a.CreateEncrypted(nil)
	servertest.MustSend(t, srv, one.EmailAddress, servertest.SimpleMessage(one.EmailAddress, "x"))

	a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+one.EmailAddress, nil, nil)
	a.ExpectError(http.StatusNotFound, "GET", "/api/inboxes/"+one.EmailAddress+"/emails", nil, "Inbox not found")
	a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+one.EmailAddress, nil, nil) // idempotent
	waitEvent(t, events, func(ev server.Event) bool {
		return ev.Type == model.EventEmailDeleted && ev.Reason == model.DeleteReasonManual && ev.Inbox.Hash == one.InboxHash
	})

	a.CreatePlain(nil)
	var all model.DeleteAllResponse
	a.Expect(http.StatusOK, "DELETE", "/api/inboxes", nil, &all)
	if all.Deleted != 2 {
		t.Fatalf("deleted %d inboxes, want 2", all.Deleted)
	}
	a.ExpectError(http.StatusNotFound, "GET", "/api/inboxes/"+two.EmailAddress+"/sync", nil, "Inbox not found")
}

// waitEvent reads bus events until match accepts one.
func waitEvent(t testing.TB, events <-chan server.Event, match func(server.Event) bool) server.Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("event subscription closed")
			}
			if match(ev) {
				return ev
			}
		case <-timeout:
			t.Fatal("timed out waiting for an event")
		}
	}
}
