package cli

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"sandview/client/smtpsend"
)

// TestCLIEmailShowHTML: `email show --html` prints the HTML part laid out
// as the reader shows it; into a pipe as plain text, emphasis written as
// Markdown, without escape sequences, the hidden preheader left out.
func TestCLIEmailShowHTML(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	newsletter, err := os.ReadFile("../../tui/htmltext/testdata/mail/newsletter.html")
	if err != nil {
		t.Fatal(err)
	}
	msg := "From: news@acme-shop.example\r\nTo: " + address + "\r\nSubject: sale\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/alternative; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSpring sale, see the HTML.\r\n" +
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + strings.ReplaceAll(string(newsletter), "\n", "\r\n") + "\r\n--b--\r\n"
	if err := smtpsend.Send(context.Background(), h.srv.SMTPAddr(), "news@acme-shop.example", []string{address}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	h.must("wait", "--subject", "^sale$", "--timeout", "20s")
	id := decodeJSON[[]emailView](t, h.must("email", "list", "--json"))[0].ID

	out := h.must("email", "show", id, "--html").stdout
	for _, want := range []string{"# Spring Sale: 70% off everything\n", "Use code\n**SPRING70**", "**$20.99** ~~$50.99~~", "[ Buy now ] [4]",
		"[image: Widget Pro]", "\n Widget Pro   ", "~~$50.99~~ |", "[4] https://acme-shop.example/sale?code=SPRING70&utm_source=newsletter\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "biggest sale") || strings.Contains(out, "Spring sale, see the HTML") {
		t.Fatalf("escape sequences, the preheader or the text part in\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if len([]rune(line)) > 80 {
			t.Fatalf("line wider than 80: %q", line)
		}
	}
	if r := h.run("email", "show", id, "--html", "--inbox", address); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// TestCLIEmailShowHTMLNumbersLinksAsEmailLinks: `email show --html`
// numbers a mail's links as `email links` lists them and `email show`
// numbers them (the text part's first, images in between), and into a pipe
// lists each address whole, even one longer than the width.
func TestCLIEmailShowHTMLNumbersLinksAsEmailLinks(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	long := "https://verify.example-app.io/confirm-email-address/abcdef-012345-ghijkl-678901?redirect-to=dashboard"
	html := `<p><a href="https://shop.test/p/1">Product</a> <img src="https://cdn.test/hero.png"> <a href="https://shop.test/blog">Blog</a> <a href="` + long + `">Confirm</a></p>`
	msg := "From: news@shop.test\r\nTo: " + address + "\r\nSubject: links\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/alternative; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nProduct: https://shop.test/p/1\r\n" +
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + html + "\r\n--b--\r\n"
	if err := smtpsend.Send(context.Background(), h.srv.SMTPAddr(), "news@shop.test", []string{address}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	h.must("wait", "--subject", "^links$", "--timeout", "20s")
	id := decodeJSON[[]emailView](t, h.must("email", "list", "--json"))[0].ID
	links := strings.Fields(h.must("email", "links", id).stdout)
	if len(links) != 4 || links[1] != "https://cdn.test/hero.png" {
		t.Fatalf("email links = %q", links)
	}
	out := h.must("email", "show", id, "--html").stdout
	if !strings.Contains(out, "Product [1] [image] Blog [3] Confirm [4]") {
		t.Fatalf("numbers differ from `email links` %q:\n%s", links, out)
	}
	for i, l := range links {
		if i == 1 { // the image is not referred to in the text
			continue
		}
		if !strings.Contains(out, "["+strconv.Itoa(i+1)+"] "+l+"\n") && !strings.Contains(out, "["+strconv.Itoa(i+1)+"]\n"+l+"\n") {
			t.Fatalf("[%d] %s not listed whole in\n%s", i+1, l, out)
		}
	}
}
