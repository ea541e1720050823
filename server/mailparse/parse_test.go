package mailparse

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"sandview/model"
)

const plainMessage = `Received: from relay2.example.net by mx.sandbox.test; Sat, 21 Nov 2026 13:25:55 +0000
Received: from client.example.org by relay2.example.net; Sat, 21 Nov 2026 13:25:54 +0000
From: "Dana Example" <dana@Example.org>
To: Bob <bob@sandbox.test>, carol@sandbox.test
Cc: "Eve, Auditor" <eve@example.net>
Subject: Your order #1042 has shipped
Date: Sat, 21 Nov 2026 13:25:55 +0000
Message-ID: <4e75770d@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Track it at https://example.org/track/1042.
Questions? mailto:help@example.org
`

func TestParsePlainText(t *testing.T) {
	m := Parse(crlf(plainMessage))

	if len(m.Warnings) != 0 {
		t.Errorf("warnings for a clean message: %q", m.Warnings)
	}
	if want := `"Dana Example" <dana@Example.org>`; m.From != want {
		t.Errorf("From = %q, want %q", m.From, want)
	}
	if m.FromAddress != "dana@Example.org" || m.FromName != "Dana Example" {
		t.Errorf("FromAddress/FromName = %q/%q", m.FromAddress, m.FromName)
	}
	if want := []string{`"Bob" <bob@sandbox.test>`, "carol@sandbox.test"}; !slices.Equal(m.To, want) {
		t.Errorf("To = %q, want %q", m.To, want)
	}
	wantTo := []model.EventAddress{{Address: "bob@sandbox.test", Name: "Bob"}, {Address: "carol@sandbox.test"}}
	if !slices.Equal(m.ToAddresses, wantTo) {
		t.Errorf("ToAddresses = %+v, want %+v", m.ToAddresses, wantTo)
	}
	if want := []model.EventAddress{{Address: "eve@example.net", Name: "Eve, Auditor"}}; !slices.Equal(m.Cc, want) {
		t.Errorf("Cc = %+v, want %+v", m.Cc, want)
	}
	if m.Subject != "Your order #1042 has shipped" {
		t.Errorf("Subject = %q", m.Subject)
	}
	if want := time.Date(2026, 11, 21, 13, 25, 55, 0, time.UTC); !m.Date.Equal(want) {
		t.Errorf("Date = %v, want %v", m.Date, want)
	}
	if m.MessageID != "<4e75770d@example.org>" {
		t.Errorf("MessageID = %q", m.MessageID)
	}
	if want := "Track it at https://example.org/track/1042.\r\nQuestions? mailto:help@example.org\r\n"; m.Content.Text != want {
		t.Errorf("Text = %q, want %q", m.Content.Text, want)
	}
	if m.Content.HTML != "" {
		t.Errorf("HTML = %q, want empty", m.Content.HTML)
	}
	if want := []string{"https://example.org/track/1042", "mailto:help@example.org"}; !slices.Equal(m.Content.Links, want) {
		t.Errorf("Links = %q, want %q", m.Content.Links, want)
	}
	if len(m.Content.Attachments) != 0 {
		t.Errorf("Attachments = %+v, want none", m.Content.Attachments)
	}
	wantReceived := "from relay2.example.net by mx.sandbox.test; Sat, 21 Nov 2026 13:25:55 +0000\n" +
		"from client.example.org by relay2.example.net; Sat, 21 Nov 2026 13:25:54 +0000"
	if got := m.Content.Headers["received"]; got != wantReceived {
		t.Errorf("received header = %q, want both values in order joined by \\n: %q", got, wantReceived)
	}
	for name, want := range map[string]string{
		"from":         `"Dana Example" <dana@Example.org>`,
		"message-id":   "<4e75770d@example.org>",
		"content-type": "text/plain; charset=utf-8",
		"mime-version": "1.0",
	} {
		if got := m.Content.Headers[name]; got != want {
			t.Errorf("header %q = %q, want %q", name, got, want)
		}
	}
	if m.Content.AuthResults.SPF != nil || m.Content.AuthResults.DKIM != nil {
		t.Errorf("AuthResults must be left for the server: %+v", m.Content.AuthResults)
	}
}

const pdfBytes = "%PDF-1.4 tiny test file\n"

// multipartMessage: mixed { alternative { text, related { html, inline
// image with Content-Disposition, inline image with only a Content-ID } },
// PDF attachment }.
const multipartMessage = `From: shop@example.org
To: buyer@sandbox.test
Subject: Receipt
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="outer"

This is a multi-part message in MIME format.
--outer
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

Thanks for your order. Receipt: https://example.org/r/7 =E2=9C=93
--alt
Content-Type: multipart/related; boundary="rel"

--rel
Content-Type: text/html; charset=utf-8

<html><body><p>Thanks! <a href="https://example.org/r/7">Receipt</a></p>
<img src="cid:logo@example.org"><img src="cid:badge@example.org">
<a href="javascript:alert(1)">x</a><a href='HTTPS://example.org/help?a=1&amp;b=2'>help</a></body></html>
--rel
Content-Type: image/png; name="logo.png"
Content-Transfer-Encoding: base64
Content-ID: <logo@example.org>
Content-Disposition: inline; filename="logo.png"

iVBORw0KGgo=
--rel
Content-Type: image/gif
Content-Transfer-Encoding: base64
Content-ID: <badge@example.org>

R0lGODlh
--rel--
--alt--
--outer
Content-Type: application/pdf; name="receipt.pdf"
Content-Transfer-Encoding: base64
Content-Disposition: attachment; filename="receipt.pdf"

JVBERi0xLjQgdGlueSB0ZXN0IGZpbGUK
--outer--
`

func TestParseMultipartWithAttachmentAndInlineImages(t *testing.T) {
	m := Parse(crlf(multipartMessage))

	if len(m.Warnings) != 0 {
		t.Errorf("warnings for a clean message: %q", m.Warnings)
	}
	if want := "Thanks for your order. Receipt: https://example.org/r/7 ✓"; m.Content.Text != want {
		t.Errorf("Text = %q, want %q", m.Content.Text, want)
	}
	if !containsAll(m.Content.HTML, `<a href="https://example.org/r/7">`, `cid:logo@example.org`) {
		t.Errorf("HTML = %q", m.Content.HTML)
	}
	wantLinks := []string{"https://example.org/r/7", "HTTPS://example.org/help?a=1&b=2"}
	if !slices.Equal(m.Content.Links, wantLinks) {
		t.Errorf("Links = %q, want %q", m.Content.Links, wantLinks)
	}

	got := m.Content.Attachments
	if len(got) != 3 {
		t.Fatalf("got %d attachments, want 3: %+v", len(got), got)
	}
	want := []model.Attachment{
		{Filename: "logo.png", ContentType: "image/png", ContentID: "logo@example.org", ContentDisposition: "inline",
			Content: []byte("\x89PNG\r\n\x1a\n")},
		{Filename: "", ContentType: "image/gif", ContentID: "badge@example.org", ContentDisposition: "inline",
			Content: []byte("GIF89a")},
		{Filename: "receipt.pdf", ContentType: "application/pdf", ContentDisposition: "attachment",
			Content: []byte(pdfBytes)},
	}
	for i, w := range want {
		a := got[i]
		sum := sha256.Sum256(w.Content)
		w.Size = int64(len(w.Content))
		w.Checksum = hex.EncodeToString(sum[:])
		if a.Filename != w.Filename || a.ContentType != w.ContentType || a.ContentID != w.ContentID ||
			a.ContentDisposition != w.ContentDisposition || a.Size != w.Size || a.Checksum != w.Checksum ||
			string(a.Content) != string(w.Content) {
			t.Errorf("attachment %d = %+v\nwant %+v", i, a, w)
		}
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
