package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"sandview/client/linkcheck"
	"sandview/client/smtpsend"
)

// sendHTML sends an HTML mail to a new inbox and returns its id.
func sendHTML(t *testing.T, h *cli, subject, body string) string {
	t.Helper()
	return sendHTMLTo(t, h, decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress, subject, body)
}

// sendHTMLTo sends an HTML mail to address and returns its id.
func sendHTMLTo(t *testing.T, h *cli, address, subject, body string) string {
	t.Helper()
	msg := "From: a@example.org\r\nTo: " + address + "\r\nSubject: " + subject + "\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: text/html; charset=utf-8\r\n\r\n" + body + "\r\n"
	if err := smtpsend.Send(context.Background(), h.srv.SMTPAddr(), "a@example.org", []string{address}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	h.must("wait", "--inbox", address, "--subject", "^"+subject+"$", "--timeout", "20s")
	return decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", address, "--json"))[0].ID
}

// TestEmailCheckHTML: the compatibility report names the features the
// HTML uses that clients lack, with a score, as text and as JSON.
func TestEmailCheckHTML(t *testing.T) {
	h := newCLI(t)
	id := sendHTML(t, h, "grid", `<div style="display:grid; gap:8px"><p>Hi</p></div>`)
	text := h.must("email", "check", id).stdout
	if !strings.Contains(text, "HTML compatibility: ") || !strings.Contains(text, "display:grid (css-display-grid") ||
		!strings.Contains(text, "not supported: ") || !strings.Contains(text, "Outlook (") {
		t.Fatalf("email check:\n%s", text)
	}
	v := decodeJSON[checkView](t, h.must("email", "check", id, "--json"))
	if v.ID != id || v.HTML == nil || v.HTML.Score <= 0 || v.HTML.Score >= 100 || v.HTML.Clients < 40 {
		t.Fatalf("email check --json: %+v", v)
	}
	found := false
	for _, f := range v.HTML.Features {
		found = found || f.Slug == "css-gap" && len(f.Unsupported) > 0
	}
	if !found {
		t.Fatalf("css-gap not reported: %+v", v.HTML.Features)
	}
}

// TestEmailCheckLinks: --links reports each link's status after its
// redirects against loopback servers answering 200, 301→200, 404 and
// never; loopback is checked only with --private.
func TestEmailCheckLinks(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusMovedPermanently) })
	mux.HandleFunc("/gone", http.NotFound)
	mux.HandleFunc("/never", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	site := httptest.NewServer(mux)
	defer site.Close()

	h := newCLI(t)
	id := sendHTML(t, h, "links", `<a href="`+site.URL+`/ok">a</a> <a href="`+site.URL+`/moved">b</a> <a href="`+
		site.URL+`/gone">c</a> <a href="`+site.URL+`/never">d</a>`)
	v := decodeJSON[checkView](t, h.must("email", "check", id, "--links", "--private", "--link-timeout", "300ms", "--json"))
	got := map[string]string{}
	for _, r := range v.Links {
		got[strings.TrimPrefix(r.URL, site.URL)] = fmt.Sprintf("%s %d %d %s", r.Outcome, r.Status, len(r.Redirects), r.Error)
	}
	want := map[string]string{"/ok": "ok 200 0 ", "/moved": "ok 200 1 ", "/gone": "broken 404 0 ", "/never": "unreachable 0 0 timeout after 300ms"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("links checked: %v, want %v", got, want)
	}
	text := h.must("email", "check", id, "--links", "--private", "--link-timeout", "300ms").stdout
	if !strings.Contains(text, "Links: 4: 2 ok, 1 broken, 1 unreachable, 0 not checked") || !strings.Contains(text, "301 → "+site.URL+"/ok") {
		t.Fatalf("email check --links:\n%s", text)
	}
	text = h.must("email", "check", id, "--links").stdout
	if !strings.Contains(text, "4 not checked") || !strings.Contains(text, "private address (loopback") || !strings.Contains(text, "(use --private)") {
		t.Fatalf("without --private:\n%s", text)
	}
}

// TestPrintLinksCountsWhatWasNotChecked: the summary does not call links
// checked that were not.
func TestPrintLinksCountsWhatWasNotChecked(t *testing.T) {
	var out strings.Builder
	results := []linkcheck.Result{{URL: "https://a.example/", Outcome: linkcheck.Unreachable}, {URL: "https://b.example/", Outcome: linkcheck.NotChecked}, {URL: "https://c.example/", Outcome: linkcheck.Cancelled}}
	if err := printLinks(&out, checkView{Links: results}); err != nil {
		t.Fatal(err)
	}
	if want := "Links: 3: 0 ok, 0 broken, 1 unreachable, 2 not checked\n"; !strings.Contains(out.String(), want) || strings.Contains(out.String(), "checked:") {
		t.Errorf("summary %q, want %q", out.String(), want)
	}
}
