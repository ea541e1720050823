package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sandview/model"
)

// envelopeScript sends mail with Python's smtplib: a password reset whose
// envelope names a Bcc recipient the header does not (its Cc a quoted
// local part, written by Python's email package), then each of Python's
// test messages to an inbox of its own. It prints, per message, the To
// and Cc addresses Python's email.utils.getaddresses reads (those with an
// "@": the others are no address).
const envelopeScript = `
import email, json, re, smtplib, sys
from email.message import EmailMessage
from email.utils import getaddresses
host, port, visible, bcc = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
jobs = json.loads(sys.argv[5])
def addrs(msg, name):
    return [a for _, a in getaddresses(msg.get_all(name, [])) if "@" in a]
out = {}
with smtplib.SMTP(host, port) as s:
    m = EmailMessage()
    m["From"] = "App <app@example.org>"
    m["To"] = visible
    m["Cc"] = 'Quoted <"odd local"@example.com>'
    m["Subject"] = "Reset your password"
    m.set_content("https://app.example/reset?t=1")
    refused = s.send_message(m, from_addr="bounce@app.example", to_addrs=[visible, bcc])
    assert not refused, refused
    out["reset"] = {"to": addrs(m, "To"), "cc": addrs(m, "Cc")}
    for path, inbox in jobs.items():
        raw = re.sub(rb"\r?\n", b"\r\n", open(path, "rb").read())
        msg = email.message_from_bytes(raw)
        s.sendmail("py@example.org", [inbox], raw)
        out[path] = {"to": addrs(msg, "To"), "cc": addrs(msg, "Cc")}
print(json.dumps(out))
`

// TestCLIEnvelopeFromPythonSMTP: mail sent by Python's smtplib with
// envelope recipients the headers do not name is found by its Bcc
// recipient (wait --to, to:, rcpt:, free text), with its envelope in show
// and --json; Python's own test messages keep their To and Cc addresses
// as Python reads them (a quoted local part quoted), and where To names no
// address (To: baz, To: IETF-Announce:;) the envelope recipient is shown
// labelled, never as To.
func TestCLIEnvelopeFromPythonSMTP(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed for this test (apt-get install python3)")
	}
	h := newCLI(t)
	create := func(address string) {
		if got := decodeJSON[inboxView](t, h.must("inbox", "create", "--address", address, "--json")).EmailAddress; got != address {
			t.Fatalf("created %s, want %s", got, address)
		}
	}
	visible, bcc := "visible@sandbox.test", "admin-bcc@sandbox.test"
	create(visible)
	create(bcc)
	jobs := map[string]string{}
	for _, n := range []string{"05", "11", "15", "20", "27", "36"} {
		path, err := filepath.Abs(filepath.Join("..", "..", "server", "mailparse", "testdata", "python_msg_"+n+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		jobs[path] = "py" + n + "@sandbox.test"
		create(jobs[path])
	}
	jobsJSON, _ := json.Marshal(jobs)
	host, port, _ := strings.Cut(h.srv.SMTPAddr(), ":")
	out, err := exec.Command(python, "-c", envelopeScript, host, port, visible, bcc, string(jobsJSON)).Output()
	if err != nil {
		stderr := ""
		if exit, ok := err.(*exec.ExitError); ok {
			stderr = string(exit.Stderr)
		}
		t.Fatalf("smtplib: %v\n%s", err, stderr)
	}
	var pyRead map[string]struct{ To, Cc []string }
	if err := json.Unmarshal(out, &pyRead); err != nil {
		t.Fatalf("python printed %q: %v", out, err)
	}

	// The Bcc recipient can be waited for, and the JSON says whom the mail
	// was for and who sent it, apart from its headers.
	waited := decodeJSON[[]emailView](t, h.must("wait", "--inbox", bcc, "--to", bcc, "--timeout", "20s", "--json"))
	if len(waited) != 1 {
		t.Fatalf("wait --to %s found %d emails", bcc, len(waited))
	}
	reset := waited[0]
	wantEnvelope := model.Envelope{From: "bounce@app.example", To: []string{bcc}}
	if reset.Envelope == nil || !slices.Equal(reset.Envelope.To, wantEnvelope.To) || reset.Envelope.From != wantEnvelope.From {
		t.Fatalf("envelope %+v, want %+v", reset.Envelope, wantEnvelope)
	}
	if !slices.Equal(reset.To, []string{visible}) || !slices.Equal(reset.Cc, []string{`"Quoted" <"odd local"@example.com>`}) {
		t.Fatalf("to %q cc %q, want the headers' (the quoted local part kept)", reset.To, reset.Cc)
	}
	if r := h.run("wait", "--inbox", visible, "--to", bcc, "--timeout", "0"); r.code != exitTimeout {
		t.Fatalf("wait --to %s in %s (its copy's envelope names only %s): exit %d", bcc, visible, visible, r.code)
	}
	for _, query := range []string{"to:admin-bcc", "rcpt:admin-bcc", "admin-bcc", `cc:"odd local"`} {
		found := decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", bcc, "--search", query, "--json"))
		if len(found) != 1 || found[0].ID != reset.ID {
			t.Errorf("--search %s found %d emails", query, len(found))
		}
	}
	if found := decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", visible, "--search", "rcpt:admin-bcc", "--json")); len(found) != 0 {
		t.Errorf("rcpt:admin-bcc finds the visible recipient's copy")
	}
	shown := h.must("email", "show", reset.ID, "--inbox", bcc).stdout
	for _, want := range []string{"To:            " + visible + "\n", `Cc:            "Quoted" <"odd local"@example.com>` + "\n",
		"Delivered to:  " + bcc + "\n", "Envelope from: bounce@app.example\n"} {
		if !strings.Contains(shown, want) {
			t.Errorf("show lacks %q:\n%s", want, shown)
		}
	}
	if raw := h.must("email", "raw", reset.ID, "--inbox", bcc).stdout; !strings.Contains(strings.SplitN(raw, "\n", 2)[0], " for <"+bcc+">;") {
		t.Errorf("the Received header of a copy for one recipient does not name it: %.200s", raw)
	}

	// Python's test messages: To and Cc as Python reads them.
	for path, inbox := range jobs {
		name := filepath.Base(path)
		want := pyRead[path]
		got := decodeJSON[[]emailView](t, h.must("wait", "--inbox", inbox, "--timeout", "20s", "--json"))[0]
		if specs := addrSpecs(t, got.To); !slices.Equal(specs, want.To) {
			t.Errorf("%s: to %q (addresses %q), Python reads %q", name, got.To, specs, want.To)
		}
		if specs := addrSpecs(t, got.Cc); !slices.Equal(specs, want.Cc) {
			t.Errorf("%s: cc %q, Python reads %q", name, got.Cc, want.Cc)
		}
		shown := h.must("email", "show", got.ID, "--inbox", inbox).stdout
		toLine := strings.SplitN(strings.SplitN(shown, "To:", 2)[1], "\n", 2)[0]
		if len(want.To) == 0 {
			if strings.TrimSpace(toLine) != inbox+" "+model.EnvelopeLabel || len(got.To) != 0 {
				t.Errorf("%s: To names no address, yet show says To:%s and JSON to %q", name, toLine, got.To)
			}
		} else if strings.Contains(toLine, model.EnvelopeLabel) {
			t.Errorf("%s: To:%s", name, toLine)
		}
	}
}

// addrSpecs are the addresses of recipients as the CLI prints them, as
// RFC 5322 writes them.
func addrSpecs(t *testing.T, recipients []string) []string {
	t.Helper()
	addrs, ok := model.ParseAddressList(strings.Join(recipients, ", "))
	if !ok {
		t.Errorf("%q is not an address list", recipients)
	}
	out := []string{}
	for _, a := range addrs {
		out = append(out, model.AddrSpec(a.Address))
	}
	return out
}
