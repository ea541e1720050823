package server_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// storedRaw returns the stored message of a plain inbox's email.
func storedRaw(t *testing.T, a *api, address, id string) []byte {
	t.Helper()
	decoded, err := base64.StdEncoding.DecodeString(a.Raw(address, id).Raw)
	if err != nil {
		t.Fatalf("raw of %s: %v", id, err)
	}
	return decoded
}

// receivedLine is the value of the first header line of raw, which must
// be a Received header.
func receivedLine(t *testing.T, raw []byte) string {
	t.Helper()
	line, _, _ := bytes.Cut(raw, []byte("\r\n"))
	value, ok := strings.CutPrefix(string(line), "Received: ")
	if !ok {
		t.Fatalf("stored message starts with %q, want a Received header", line)
	}
	return value
}

// TestReceivedTraceHeader: every stored copy gets a Received header on top
// naming the HELO name, the client's address, the server, the protocol,
// the email id, the recipient it was delivered for and the date; the
// parsed headers show it first among the Received values the message
// already had; the rest of the message is kept byte for byte.
func TestReceivedTraceHeader(t *testing.T) {
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.Hostname = "mx.sandview.test" })
	first, second := a.CreatePlain(nil), a.CreatePlain(nil)
	msg := []byte("Received: from relay.example.org by mx.example.org; Sat, 21 Nov 2026 09:59:00 +0000\r\n" +
		string(servertest.SimpleMessage(first.EmailAddress, "traced")))

	c, err := smtp.Dial(srv.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("client.example.org"); err != nil {
		t.Fatal(err)
	}
	before := time.Now().UTC().Truncate(time.Second)
	if err := smtpsend.SendOn(c, "sender@example.org", []string{first.EmailAddress, second.EmailAddress}, msg); err != nil {
		t.Fatal(err)
	}
	for _, in := range []model.Inbox{first, second} {
		list := a.Emails(in.EmailAddress, true)
		if len(list) != 1 {
			t.Fatalf("%s holds %d emails, want 1", in.EmailAddress, len(list))
		}
		id := list[0].ID
		raw := storedRaw(t, a, in.EmailAddress, id)
		value := receivedLine(t, raw)
		wantStart := fmt.Sprintf("from client.example.org ([127.0.0.1]) by mx.sandview.test with ESMTP id %s for <%s>; ", id, in.EmailAddress)
		date, ok := strings.CutPrefix(value, wantStart)
		if !ok {
			t.Fatalf("Received: %s\nwant it to start with %s", value, wantStart)
		}
		at, err := time.Parse(time.RFC1123Z, date)
		if err != nil || at.Before(before) || at.After(time.Now().Add(time.Second)) {
			t.Fatalf("Received date %q (%v): want the RFC 5322 time of arrival", date, err)
		}
		if !bytes.Equal(withoutTrace(t, raw), msg) {
			t.Fatalf("stored message after the trace header differs from the sent one:\n%q", raw)
		}
		_, parsed := servertest.DecodePlain(t, list[0])
		if want := value + "\nfrom relay.example.org by mx.example.org; Sat, 21 Nov 2026 09:59:00 +0000"; parsed.Headers["received"] != want {
			t.Fatalf("parsed received header %q, want %q", parsed.Headers["received"], want)
		}
	}

	var created model.TestEmailResponse
	a.Expect(http.StatusCreated, "POST", "/api/test/emails", map[string]any{"to": first.EmailAddress}, &created)
	want := fmt.Sprintf("from localhost ([127.0.0.1]) by mx.sandview.test with HTTP id %s for <%s>; ", created.EmailID, first.EmailAddress)
	if value := receivedLine(t, storedRaw(t, a, first.EmailAddress, created.EmailID)); !strings.HasPrefix(value, want) {
		t.Fatalf("test email's Received: %s\nwant it to start with %s", value, want)
	}
}

// TestDKIMRunsOnTheMessageAsReceived: the checks verify the message as it
// arrived, before the trace header is added. A signature that oversigns
// Received (it asserts there is no second one) passes; verified after the
// server's own Received header it would fail.
func TestDKIMRunsOnTheMessageAsReceived(t *testing.T) {
	resolver, key := authResolver(t)
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.Resolver = resolver })
	in := a.CreatePlain(nil)
	msg := []byte("Received: from relay.example.org by mx.example.org; Sat, 21 Nov 2026 09:59:00 +0000\r\n" +
		string(servertest.SimpleMessage(in.EmailAddress, "oversigned")))
	signed := signMessageHeaders(t, key, msg, "From", "To", "Subject", "Date", "Message-ID", "Received", "Received")
	servertest.MustSend(t, srv, in.EmailAddress, signed)
	_, parsed := servertest.DecodePlain(t, a.Emails(in.EmailAddress, true)[0])
	if dkim := parsed.AuthResults.DKIM; len(dkim) != 1 || dkim[0].Result != model.ResultPass {
		t.Fatalf("DKIM %+v, want pass: it must be verified on the message as received", dkim)
	}
}
