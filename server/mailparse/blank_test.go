package mailparse

import "testing"

// TestBlankTextPartsAreSkipped: text parts that are empty or whitespace
// only are not joined into the text body, so a mail whose text parts are
// all blank has no text and clients show its HTML; non-blank parts are
// still joined in order.
func TestBlankTextPartsAreSkipped(t *testing.T) {
	const newsletter = `From: shop@example.org
To: t@sandbox.test
Subject: Spring sale
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="mixed"

--mixed
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=utf-8


--alt
Content-Type: text/html; charset=utf-8

<p>Use code <b>SPRING70</b></p>
--alt--
--mixed
Content-Type: application/pdf; name="invoice.pdf"
Content-Disposition: attachment; filename="invoice.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQK
--mixed
Content-Type: text/plain

   
--mixed--
`
	m := Parse(crlf(newsletter))
	if m.Content.Text != "" {
		t.Errorf("text %q, want none: every text part is blank", m.Content.Text)
	}
	if m.Content.HTML == "" || len(m.Content.Attachments) != 1 {
		t.Errorf("HTML %q, %d attachments: want the HTML and the PDF", m.Content.HTML, len(m.Content.Attachments))
	}

	const mixed = `Content-Type: multipart/mixed; boundary="b"

--b
Content-Type: text/plain

One
--b
Content-Type: text/plain

 
--b
Content-Type: text/plain

Two
--b--
`
	if got := Parse(crlf(mixed)).Content.Text; got != "One\n--\nTwo" {
		t.Errorf("text %q, want One and Two joined without the blank part", got)
	}

	const alternative = `Content-Type: multipart/alternative; boundary="a"

--a
Content-Type: text/plain

  
--a
Content-Type: text/html

<p>Hi</p>
--a--
`
	if got := Parse(crlf(alternative)).Content; got.Text != "" || got.HTML == "" {
		t.Errorf("text %q HTML %q, want no text and the HTML", got.Text, got.HTML)
	}
}
