package cli

import (
	"context"
	"strings"
	"testing"

	"sandview/client/smtpsend"
)

// TestCLIEmailShowPointsToTheHTML: a mail whose text parts are all empty
// (an empty text/plain beside the HTML, a PDF, a trailing empty text
// part) shows no "--" lines but says how to see its HTML.
func TestCLIEmailShowPointsToTheHTML(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	msg := "From: news@acme-shop.example\r\nTo: " + address + "\r\nSubject: blank text\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=m\r\n\r\n" +
		"--m\r\nContent-Type: multipart/alternative; boundary=a\r\n\r\n" +
		"--a\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\r\n" +
		"--a\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Use code <b>SPRING70</b></p>\r\n--a--\r\n" +
		"--m\r\nContent-Type: application/pdf; name=invoice.pdf\r\nContent-Disposition: attachment; filename=invoice.pdf\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n" +
		"--m\r\nContent-Type: text/plain\r\n\r\n\r\n--m--\r\n"
	if err := smtpsend.Send(context.Background(), h.srv.SMTPAddr(), "news@acme-shop.example", []string{address}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	h.must("wait", "--subject", "^blank text$", "--timeout", "20s")
	id := decodeJSON[[]emailView](t, h.must("email", "list", "--json"))[0].ID
	out := h.must("email", "show", id).stdout
	if !strings.Contains(out, "(HTML only: sandview email show "+id+" --html)") || strings.Contains(out, "\n--\n") {
		t.Fatalf("email show:\n%s", out)
	}
}
