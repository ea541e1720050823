package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"sandview/client/smtpsend"
	"sandview/crypto"
)

// TestSDKServerInfoAndKey: the SDKs read server-info (context, algs, TTLs,
// domains) and check the key with {"ok": true}.
func TestSDKServerInfoAndKey(t *testing.T) {
	h := sdkServer(t)
	var info struct {
		ServerSigPk    string      `json:"serverSigPk"`
		Algs           crypto.Algs `json:"algs"`
		Context        string      `json:"context"`
		MaxTTL         int         `json:"maxTtl"`
		DefaultTTL     int         `json:"defaultTtl"`
		AllowedDomains []string    `json:"allowedDomains"`
	}
	h.expectJSON(http.StatusOK, "GET", "/api/server-info", nil, &info)
	if info.Context != sdkContext || info.MaxTTL <= info.DefaultTTL-1 || len(info.AllowedDomains) == 0 || info.Algs.KEM != "ML-KEM-768" {
		t.Fatalf("server-info %+v: want the SDKs' context %q", info, sdkContext)
	}
	var key struct{ OK bool }
	if h.expectJSON(http.StatusOK, "GET", "/api/check-key", nil, &key); !key.OK {
		t.Fatal("check-key: ok is not true")
	}
}

// TestSDKCreateInbox: POST /api/inboxes answers 201 to the Go SDK's body,
// with and without the options it sends (persistence, spamAnalysis,
// emailAuth), and 400 naming what it does not know.
func TestSDKCreateInbox(t *testing.T) {
	h := sdkServer(t)
	in := h.createSDKInbox(map[string]any{"persistence": "ephemeral", "spamAnalysis": false, "emailAuth": false})
	pk, err := crypto.DecodeBase64URL(in.ServerSigPk)
	if err != nil || len(pk) != sdkServerKeySize || !in.Encrypted || in.EmailAuth || strings.Count(in.EmailAddress, "@") != 1 ||
		in.InboxHash != crypto.InboxHash(in.keys.PublicKey) || time.Until(in.ExpiresAt) < 59*time.Minute {
		t.Fatalf("created %+v", in)
	}
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"clientKemPk": crypto.EncodeBase64URL(in.keys.PublicKey), "colour": "red"}, "colour"},
		{map[string]any{"ttl": "an hour"}, "ttl"},
		{map[string]any{"encryption": "plain", "spamAnalysis": true}, "spamAnalysis"},
	} {
		if status, body := h.call("POST", "/api/inboxes", c.body); status != http.StatusBadRequest || !strings.Contains(string(body), c.want) {
			t.Errorf("%v: %d %s; want 400 naming %s", c.body, status, body, c.want)
		}
	}
}

// TestSDKReadsMail: SMTP mail decrypts with the hard-coded context;
// metadata `to` is a string; parsed content gives text, HTML, headers
// (strings), attachments with content, links and nested auth results with
// a boolean reverseDns.verified; the raw source is base64 text.
func TestSDKReadsMail(t *testing.T) {
	h := sdkServer(t)
	in := h.createSDKInbox(nil)
	msg := "From: Ana <ana@example.org>\r\nTo: " + in.EmailAddress + "\r\nSubject: Grüße 🚀\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: multipart/alternative; boundary=a\r\n\r\n" +
		"--a\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nReset: https://example.org/reset?t=1\r\n" +
		"--a\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<a href=\"https://example.org/reset?t=1\">Reset</a>\r\n--a--\r\n" +
		"--b\r\nContent-Type: text/csv\r\nContent-Disposition: attachment; filename=\"r.csv\"\r\n\r\nx,y\r\n--b--\r\n"
	if err := smtpsend.Send(context.Background(), h.srv.SMTPAddr(), "ana@example.org", []string{in.EmailAddress}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	path := "/api/inboxes/" + url.PathEscape(in.EmailAddress) + "/emails"
	var list []sdkRecord
	h.expectJSON(http.StatusOK, "GET", path+"?includeContent=true", nil, &list)
	if len(list) != 1 || list[0].InboxID != in.InboxHash || list[0].ReceivedAt.IsZero() {
		t.Fatalf("list %+v", list)
	}
	meta := decodeAs[sdkMetadata](t, "metadata", in.open(t, list[0].EncryptedMetadata))
	if meta.To != in.EmailAddress || meta.Subject != "Grüße 🚀" || !strings.Contains(meta.From, "ana@example.org") {
		t.Fatalf("metadata %+v", meta)
	}
	if _, err := time.Parse(time.RFC3339, meta.ReceivedAt); err != nil {
		t.Fatalf("metadata receivedAt %q: the Go SDK parses RFC 3339: %v", meta.ReceivedAt, err)
	}
	parsed := decodeAs[sdkParsed](t, "parsed content", in.open(t, list[0].EncryptedParsed))
	if !strings.Contains(parsed.Text, "Reset:") || !strings.Contains(parsed.HTML, "<a href") || len(parsed.Links) != 1 ||
		len(parsed.Attachments) != 1 || string(parsed.Attachments[0].Content) != "x,y" || parsed.Attachments[0].Size != 3 {
		t.Fatalf("parsed %+v", parsed)
	}
	for name, v := range parsed.Headers {
		if _, ok := v.(string); !ok {
			t.Errorf("header %s is %T: the Go SDK keeps string values only", name, v)
		}
	}
	if parsed.Headers["subject"] != "Grüße 🚀" || !strings.HasPrefix(parsed.Headers["received"].(string), "from ") {
		t.Errorf("headers %v", parsed.Headers)
	}
	if a := parsed.AuthResults; a.SPF == nil || len(a.DKIM) == 0 || a.DMARC == nil || a.ReverseDNS == nil || a.ReverseDNS.IP != "127.0.0.1" {
		t.Fatalf("auth results %+v", a)
	}

	var single sdkRecord
	h.expectJSON(http.StatusOK, "GET", path+"/"+list[0].ID, nil, &single)
	decodeAs[sdkParsed](t, "parsed content", in.open(t, single.EncryptedParsed))
	var raw struct {
		ID           string          `json:"id"`
		EncryptedRaw *crypto.Payload `json:"encryptedRaw"`
	}
	h.expectJSON(http.StatusOK, "GET", path+"/"+list[0].ID+"/raw", nil, &raw)
	if source := base64Text(t, in.open(t, raw.EncryptedRaw)); !strings.HasPrefix(source, "Received: from ") || !strings.HasSuffix(source, msg) {
		t.Fatalf("raw source %.200q: want the trace header and the message", source)
	}

	h.expectJSON(http.StatusNoContent, "PATCH", path+"/"+list[0].ID+"/read", nil, nil)
	h.expectJSON(http.StatusNoContent, "DELETE", path+"/"+list[0].ID, nil, nil)
	if status, _ := h.call("GET", path+"/"+list[0].ID, nil); status != http.StatusNotFound {
		t.Fatalf("a deleted email: %d, want 404 (ErrEmailNotFound)", status)
	}
}

// TestSDKTestEmailWithChosenResults: the SDKs' tests create mail through
// the test endpoint with nested auth choices (201 {emailId}) and read
// those results back.
func TestSDKTestEmailWithChosenResults(t *testing.T) {
	h := sdkServer(t)
	in := h.createSDKInbox(nil)
	var created struct{ EmailID string }
	h.expectJSON(http.StatusCreated, "POST", "/api/test/emails", map[string]any{
		"to": in.EmailAddress, "subject": "chosen", "text": "t", "html": "<p>h</p>",
		"auth": map[string]any{"spf": "fail", "dkim": "pass", "dmarc": "none", "reverseDns": "pass"},
	}, &created)
	var rec sdkRecord
	h.expectJSON(http.StatusOK, "GET", "/api/inboxes/"+url.PathEscape(in.EmailAddress)+"/emails/"+created.EmailID, nil, &rec)
	a := decodeAs[sdkParsed](t, "parsed content", in.open(t, rec.EncryptedParsed)).AuthResults
	if a.SPF.Result != "fail" || a.DKIM[0].Result != "pass" || a.DMARC.Result != "none" || !a.ReverseDNS.Verified {
		t.Fatalf("auth results %+v, want the chosen ones with reverseDns verified", a)
	}
}

// TestSDKWaitsOverTheEventStream: WaitForEmail/WaitForEmailCount open the
// stream, then list, then take `data: ` lines ({inboxId, emailId,
// encryptedMetadata}; heartbeats have no inboxId and are ignored) and
// fetch each email; polling compares the sync hash.
func TestSDKWaitsOverTheEventStream(t *testing.T) {
	h := sdkServer(t)
	in := h.createSDKInbox(nil)
	ctx, cancel := context.WithTimeout(h.ctx, 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.srv.URL()+"/api/events?inboxes="+url.QueryEscape(in.InboxHash), nil)
	req.Header.Set("X-API-Key", "test-key")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("open the stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	events := readEvents(ctx, t, resp.Body)

	var before struct {
		EmailCount int    `json:"emailCount"`
		EmailsHash string `json:"emailsHash"`
	}
	syncPath := "/api/inboxes/" + url.PathEscape(in.EmailAddress) + "/sync"
	h.expectJSON(http.StatusOK, "GET", syncPath, nil, &before)
	for i := range 2 {
		h.testEmail(map[string]any{"to": in.EmailAddress, "subject": fmt.Sprintf("wait %d", i)})
	}
	heartbeats, got := 0, map[string]bool{}
	for len(got) < 2 || heartbeats == 0 {
		select {
		case data := <-events:
			ev := decodeAs[struct {
				InboxID           string          `json:"inboxId"`
				EmailID           string          `json:"emailId"`
				EncryptedMetadata *crypto.Payload `json:"encryptedMetadata"`
			}](t, "stream event", []byte(data))
			if ev.InboxID == "" {
				heartbeats++
				continue
			}
			if ev.InboxID != in.InboxHash {
				t.Fatalf("event for inbox %q, want %q", ev.InboxID, in.InboxHash)
			}
			meta := decodeAs[sdkMetadata](t, "event metadata", in.open(t, ev.EncryptedMetadata))
			var rec sdkRecord
			h.expectJSON(http.StatusOK, "GET", "/api/inboxes/"+url.PathEscape(in.EmailAddress)+"/emails/"+ev.EmailID, nil, &rec)
			in.open(t, rec.EncryptedParsed)
			got[meta.Subject] = true
		case <-ctx.Done():
			t.Fatalf("stream gave %v and %d heartbeats before the deadline", got, heartbeats)
		}
	}
	var after struct {
		EmailCount int    `json:"emailCount"`
		EmailsHash string `json:"emailsHash"`
	}
	h.expectJSON(http.StatusOK, "GET", syncPath, nil, &after)
	if after.EmailCount != before.EmailCount+2 || after.EmailsHash == before.EmailsHash {
		t.Fatalf("sync %+v then %+v: the polling strategy sees no change", before, after)
	}
}
