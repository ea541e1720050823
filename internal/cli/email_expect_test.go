package cli

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sandview/internal/expect"
)

// pyMailScript builds a mail with Python's email package (EmailMessage:
// a text part, an HTML alternative or HTML alone, extra headers) and sends
// it with smtplib. Arguments: host, port; standard input: the mail as JSON.
const pyMailScript = `
import json, smtplib, sys
from email.message import EmailMessage
host, port, m = sys.argv[1], int(sys.argv[2]), json.load(sys.stdin)
msg = EmailMessage()
msg["From"], msg["To"], msg["Subject"] = m["from"], m["to"], m["subject"]
for k, v in m.get("headers", {}).items():
    msg[k] = v
if m.get("text"):
    msg.set_content(m["text"])
    if m.get("html"):
        msg.add_alternative(m["html"], subtype="html")
else:
    msg.set_content(m["html"], subtype="html")
with smtplib.SMTP(host, port) as s:
    s.send_message(msg)
`

// pyMail is a mail for pyMailScript.
type pyMail struct {
	From    string            `json:"from"`
	To      string            `json:"to"`
	Subject string            `json:"subject"`
	Text    string            `json:"text,omitempty"`
	HTML    string            `json:"html,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// sendPython sends m, made by Python's email package, to a new inbox
// (m.To is set to it) and returns the inbox and the mail's id.
func sendPython(t *testing.T, h *cli, m pyMail) (inbox, id string) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed for this test (apt-get install python3)")
	}
	m.To = decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	spec, _ := json.Marshal(m)
	host, port, _ := strings.Cut(h.srv.SMTPAddr(), ":")
	cmd := exec.Command(python, "-c", pyMailScript, host, port)
	cmd.Stdin = strings.NewReader(string(spec))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	got := decodeJSON[[]emailView](t, h.must("wait", "--inbox", m.To, "--timeout", "20s", "--json"))
	return m.To, got[0].ID
}

// goodMail passes every standard assertion.
func goodMail(subject, text, html string) pyMail {
	return pyMail{From: "Shop <shop@example.org>", Subject: subject, Text: text, HTML: html,
		Headers: map[string]string{"List-Unsubscribe": "<https://shop.example/unsub?u=8f3k2j9d>"}}
}

// expectReport runs email expect --json and decodes its report.
func expectReport(t *testing.T, h *cli, wantCode int, args ...string) expect.Report {
	t.Helper()
	r := h.run(append([]string{"email", "expect", "--json"}, args...)...)
	if r.code != wantCode {
		t.Fatalf("email expect %v: exit %d, want %d\n%s%s", args, r.code, wantCode, r.stdout, r.stderr)
	}
	var rep expect.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	return rep
}

// outcomes maps each assertion of a report to "pass" or "fail: FOUND".
func outcomes(rep expect.Report) map[string]string {
	m := map[string]string{}
	for _, r := range rep.Results {
		m[r.Name] = "pass"
		if !r.Passed {
			m[r.Name] = "fail: " + r.Found
		}
	}
	return m
}

// TestEmailExpectEachAssertion: mails made by Python's email package pass
// and fail each assertion; the table names each with what was found and
// the exit code is 1 when one fails.
func TestEmailExpectEachAssertion(t *testing.T) {
	h := newCLI(t)
	goodHTML := `<p>Welcome, Ada!</p><img src="cid:logo" alt="Shop"><img src="spacer.gif" alt="">`
	goodInbox, good := sendPython(t, h, goodMail("Welcome, Ada", "Welcome, Ada!", goodHTML))
	badHTML := `<html><head><link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto"><script>track()</script></head><body>` +
		`<div style="display:grid"><img src="https://shop.example/logo.png"><a href="https://evil.example/login">https://shop.example/account</a></div>` +
		strings.Repeat("<p>padding padding padding padding padding padding padding</p>\n", 1800) + `</body></html>`
	badInbox, bad := sendPython(t, h, pyMail{From: "Other <other@elsewhere.example>", Subject: "Hello", HTML: badHTML})

	rep := expectReport(t, h, 0, good, "--inbox", goodInbox, "--subject", "Welcome, Ada", "--from", "shop@example.org",
		"--to", `~@`, "--min-compat", "50")
	// The exact sender as written, its address, or Name <address> unquoted.
	for _, from := range []string{"Shop <shop@example.org>", "SHOP@example.org"} {
		expectReport(t, h, 0, good, "--inbox", goodInbox, "--from", from)
	}
	want := map[string]string{"subject": "pass", "from": "pass", "to": "pass", "verdict": "pass", "compat": "pass", "html-size": "pass",
		"text-part": "pass", "list-unsubscribe": "pass", "image-alt": "pass", "remote-fonts-scripts": "pass", "deceptive-links": "pass"}
	if got := outcomes(rep); !rep.Passed || rep.Failed != 0 || len(got) != len(want) {
		t.Fatalf("the good mail: %v", got)
	}
	rep = expectReport(t, h, 1, bad, "--inbox", badInbox, "--subject", "~^Welcome", "--from", "Shop <shop@example.org>", "--to", "someone@example.org",
		"--min-compat", "100", "--max-spam", "5")
	got := outcomes(rep)
	for name, found := range map[string]string{
		"subject": `"Hello"`, "from": `other@elsewhere.example`, "to": "@sandbox.test", "compat": "% of ",
		"spam": "not scored: the server does not run SpamAssassin", "html-size": " KB", "text-part": "no text part (HTML only)",
		"list-unsubscribe": "no List-Unsubscribe header", "image-alt": "1 of 1 images without alt: https://shop.example/logo.png",
		"remote-fonts-scripts": "scripts: inline; remote fonts or stylesheets: https://fonts.googleapis.com/css?family=Roboto",
		"deceptive-links":      "https://evil.example/login",
	} {
		if !strings.HasPrefix(got[name], "fail: ") || !strings.Contains(got[name], found) {
			t.Errorf("%s on the bad mail: %q, want a failure with %q", name, got[name], found)
		}
	}
	if got["verdict"] != "pass" || rep.Failed != len(got)-1 {
		t.Errorf("the bad mail: %d failed: %v", rep.Failed, got)
	}
	// --verdict pass tightens: a mail from loopback without DKIM is not pass.
	if got := outcomes(expectReport(t, h, 1, good, "--inbox", goodInbox, "--verdict", "pass")); !strings.HasPrefix(got["verdict"], "fail: not ") {
		t.Errorf("--verdict pass on an unsigned mail: %v", got)
	}
	// --skip leaves a standard assertion out.
	if got := outcomes(expectReport(t, h, 1, bad, "--inbox", badInbox, "--skip", "list-unsubscribe,text-part")); got["list-unsubscribe"] != "" || got["text-part"] != "" || got["image-alt"] == "" {
		t.Errorf("--skip: %v", got)
	}

	text := h.run("email", "expect", bad, "--inbox", badInbox, "--subject", "Welcome")
	if text.code != 1 || !strings.Contains(text.stdout, `FAIL  subject               expected subject is "Welcome"; found "Hello"`) ||
		!strings.Contains(text.stdout, "PASS  verdict ") || !strings.Contains(text.stderr, "sandview: 7 of 8 assertions failed on email "+bad) {
		t.Errorf("the table: exit %d\n%s%s", text.code, text.stdout, text.stderr)
	}
}

// TestEmailExpectJUnit: --junit FILE writes JUnit XML that parses, one
// test case per assertion, a failure (with what was found) per failed one;
// --junit - writes it to standard output and the table to stderr.
func TestEmailExpectJUnit(t *testing.T) {
	h := newCLI(t)
	inbox, id := sendPython(t, h, pyMail{From: "a@example.org", Subject: "No unsubscribe", Text: "hi", HTML: `<p>hi <img src="x.png"></p>`})
	file := filepath.Join(t.TempDir(), "mail.xml")
	r := h.run("email", "expect", id, "--inbox", inbox, "--subject", "No unsubscribe", "--junit", file)
	if r.code != 1 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	type testcase struct {
		Name    string `xml:"name,attr"`
		Failure *struct {
			Message string `xml:"message,attr"`
		} `xml:"failure"`
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Tests    int        `xml:"tests,attr"`
			Failures int        `xml:"failures,attr"`
			Cases    []testcase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	parse := func(data string) {
		t.Helper()
		doc.Suites = nil
		if err := xml.Unmarshal([]byte(data), &doc); err != nil {
			t.Fatalf("JUnit XML: %v\n%s", err, data)
		}
		if len(doc.Suites) != 1 || doc.Tests != 8 || doc.Failures != 2 || doc.Suites[0].Tests != 8 || doc.Suites[0].Failures != 2 || len(doc.Suites[0].Cases) != 8 {
			t.Fatalf("JUnit counts: %+v", doc)
		}
		failed := map[string]string{}
		for _, c := range doc.Suites[0].Cases {
			if c.Failure != nil {
				failed[c.Name] = c.Failure.Message
			}
		}
		if failed["list-unsubscribe"] != "expected a List-Unsubscribe header; found no List-Unsubscribe header" ||
			!strings.Contains(failed["image-alt"], "found 1 of 1 images without alt: x.png") || len(failed) != 2 {
			t.Fatalf("JUnit failures: %v", failed)
		}
	}
	parse(string(data))
	if !strings.Contains(r.stdout, "FAIL  list-unsubscribe") {
		t.Errorf("no table with --junit FILE:\n%s", r.stdout)
	}
	r = h.run("email", "expect", id, "--inbox", inbox, "--subject", "No unsubscribe", "--junit", "-")
	if r.code != 1 || !strings.HasPrefix(r.stdout, "<?xml") || !strings.Contains(r.stderr, "FAIL  list-unsubscribe") {
		t.Fatalf("--junit -: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	parse(r.stdout)
}

// TestEmailExpectLinks: --links passes when every link answers 2xx/3xx
// and names the ones that do not; loopback is checked only with --private.
func TestEmailExpectLinks(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	mux.HandleFunc("/gone", http.NotFound)
	site := httptest.NewServer(mux)
	defer site.Close()
	h := newCLI(t)
	okInbox, ok := sendPython(t, h, goodMail("links ok", "Go: "+site.URL+"/ok and "+site.URL+"/moved", ""))
	goneInbox, gone := sendPython(t, h, goodMail("links gone", "Go: "+site.URL+"/ok and "+site.URL+"/gone", ""))
	if got := outcomes(expectReport(t, h, 0, ok, "--inbox", okInbox, "--links", "--private")); got["links"] != "pass" {
		t.Errorf("answering links: %v", got)
	}
	if got := outcomes(expectReport(t, h, 1, gone, "--inbox", goneInbox, "--links", "--private")); got["links"] != "fail: 1 of 2 links fail: "+site.URL+"/gone: 404" {
		t.Errorf("a 404: %v", got)
	}
	if got := outcomes(expectReport(t, h, 1, ok, "--inbox", okInbox, "--links")); !strings.Contains(got["links"], "fail: 2 of 2 links fail") || !strings.Contains(got["links"], "(allowed with --private)") {
		t.Errorf("loopback without --private: %v", got)
	}
}
