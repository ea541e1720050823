package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/client/smtpsend"
	"sandview/model/search"
)

// sendRaw submits a message over SMTP to the harness's server.
func (c *cli) sendRaw(to string, msg []byte) {
	c.t.Helper()
	if err := smtpsend.Send(context.Background(), c.srv.SMTPAddr(), "sender@example.org", []string{to}, msg); err != nil {
		c.t.Fatal(err)
	}
}

// emailBySubject is the id of the listed email with that subject.
func (c *cli) emailBySubject(inbox, subject string) emailView {
	c.t.Helper()
	for _, e := range decodeJSON[[]emailView](c.t, c.must("email", "list", "--inbox", inbox, "--json")) {
		if e.Subject == subject {
			return e
		}
	}
	c.t.Fatalf("no email %q in %s", subject, inbox)
	return emailView{}
}

// TestCLIVerdictOfSentMail: a mail sent with `sandview send` to the
// embedded server (no SPF, DKIM or DMARC records for its sender) is never
// "fail": not in the list, not in show, not in --json, not for
// --search auth:fail. All four say the same words.
func TestCLIVerdictOfSentMail(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	h.must("send", "--to", address, "--from", "qa@app.example", "--subject", "sent by sandview", "--text", "hi", "--smtp", h.srv.SMTPAddr())
	h.must("wait", "--inbox", address, "--subject", "^sent by sandview$", "--timeout", "20s")

	e := h.emailBySubject(address, "sent by sandview")
	if e.Verdict == "" || e.Verdict == "fail" || e.Verdict == "pass" || e.Validation.Passed {
		t.Fatalf("verdict %q, validation %+v, auth %+v", e.Verdict, e.Validation, e.AuthResults)
	}
	if list := h.must("email", "list", "--inbox", address).stdout; !strings.Contains(list, e.Verdict) || strings.Contains(list, "fail") {
		t.Fatalf("list says:\n%s", list)
	}
	if shown := h.must("email", "show", e.ID, "--inbox", address).stdout; !strings.Contains(shown, "Auth:          "+e.Verdict+" (") {
		t.Fatalf("show says:\n%s", shown)
	}
	if r := h.must("email", "list", "--inbox", address, "--search", "auth:fail"); !strings.Contains(r.stdout, search.NoMatches) {
		t.Fatalf("auth:fail lists:\n%s", r.stdout)
	}
	word := map[string]string{"not verified": "unverified", "not checked": "skipped"}[e.Verdict]
	if r := h.must("email", "list", "--inbox", address, "--search", "auth:"+word); !strings.Contains(r.stdout, "sent by sandview") {
		t.Fatalf("auth:%s lists:\n%s", word, r.stdout)
	}
}

// TestCLIDatesCcAndMbox: mail made by Python's email package and Python's
// msg_25 (an mbox "From " line first) are read whole; show and --json give
// the Date header (the sender's zone kept) apart from the server's
// receive time, say when the header is missing or unparsable, and list Cc
// (show names ten, then "and N more").
func TestCLIDatesCcAndMbox(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	for _, name := range []string{"python_cc_date.eml", "python_msg_25.txt"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "server", "mailparse", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		h.sendRaw(address, raw)
	}
	h.sendRaw(address, []byte("From: a@example.org\r\nSubject: undated\r\n\r\nx\r\n"))
	h.sendRaw(address, []byte("From: a@example.org\r\nSubject: misdated\r\nDate: next Tuesday\r\n\r\nx\r\n"))
	h.must("wait", "--inbox", address, "--count", "4", "--timeout", "20s")

	py := h.emailBySubject(address, "Réunion au café")
	if len(py.Cc) != 12 || py.Cc[0] != `"Café, Team" <team@example.net>` || py.Date == nil ||
		py.Date.Format(time.RFC3339) != "2025-03-03T10:00:00+01:00" || py.ReceivedAt.Year() < 2026 {
		t.Fatalf("python mail: cc %q, date %v, received %v", py.Cc, py.Date, py.ReceivedAt)
	}
	shown := h.withEnv("TZ=UTC").must("email", "show", py.ID, "--inbox", address).stdout
	for _, want := range []string{
		"Cc:            \"Café, Team\" <team@example.net>, cc0@example.net,", "cc8@example.net and 2 more\n",
		"Date:          Mon, 03 Mar 2025 10:00:00 +0100 (local: Mon, 03 Mar 2025 09:00:00 +0000)\n",
		"Received:      " + py.ReceivedAt.UTC().Format("Mon, 02 Jan 2006"),
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("show lacks %q:\n%s", want, shown)
		}
	}

	mbox := h.emailBySubject(address, "Returned mail: Too many hops 19 (17 max): from <linuxuser-admin@www.linux.org.uk> via [199.164.235.226], to <scoffman@wellpartner.com>")
	if !strings.Contains(mbox.From, "MAILER-DAEMON@zinfandel.lacita.com") || mbox.Date == nil || mbox.Date.Format(time.RFC3339) != "2001-04-06T09:23:06-08:00" {
		t.Fatalf("mbox mail: from %q, date %v", mbox.From, mbox.Date)
	}
	if raw := h.must("email", "raw", mbox.ID, "--inbox", address).stdout; strings.Contains(raw, "From MAILER-DAEMON") {
		t.Fatalf("the stored source keeps the mbox From_ line:\n%.300s", raw)
	}

	for subject, want := range map[string]string{"undated": "no Date header", "misdated": "unparsable Date header: next Tuesday"} {
		e := h.emailBySubject(address, subject)
		if e.Date != nil || e.DateProblem != want {
			t.Errorf("%s: date %v, problem %q", subject, e.Date, e.DateProblem)
		}
		if shown := h.must("email", "show", e.ID, "--inbox", address).stdout; !strings.Contains(shown, "Date:          "+want+"\n") {
			t.Errorf("%s: show:\n%s", subject, shown)
		}
	}
}

// TestCLISearchTruth: an invalid query exits 2 with the parser's words, a
// search matching nothing says so, and text folds case and accents.
func TestCLISearchTruth(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	h.must("send", "--to", address, "--subject", "Rendez-vous au Café", "--text", "À bientôt", "--smtp", h.srv.SMTPAddr())
	h.must("wait", "--inbox", address, "--timeout", "20s")

	if r := h.run("email", "list", "--inbox", address, "--search", "is:starred"); r.code != exitUsage || !strings.Contains(r.stderr, `"is:starred": is: takes read or unread`) {
		t.Fatalf("is:starred: exit %d, %q", r.code, r.stderr)
	}
	if r := h.must("email", "list", "--inbox", address, "--search", "nothing-like-this"); r.stdout != search.NoMatches+"\n" {
		t.Fatalf("no match: %q", r.stdout)
	}
	for _, q := range []string{"cafe", "CAFÉ", "subject:cafe", "a bientot"} {
		if r := h.must("email", "list", "--inbox", address, "--search", q); !strings.Contains(r.stdout, "Rendez-vous au Café") {
			t.Errorf("%s: %q", q, r.stdout)
		}
	}
}

// TestCLISmallTruths: an unnamed calendar part is listed and saved as
// calendar.ics (the server keeps no method= to call it an invite); wait --json on a timeout prints []; counts of one are
// singular.
func TestCLISmallTruths(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	h.sendRaw(address, []byte("From: a@example.org\r\nSubject: invite\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nJoin us\r\n"+
		"--b\r\nContent-Type: text/calendar; method=REQUEST; charset=UTF-8\r\nContent-Disposition: attachment\r\n\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n--b--\r\n"))
	h.must("wait", "--inbox", address, "--subject", "^invite$", "--timeout", "20s")
	id := h.emailBySubject(address, "invite").ID
	if listed := h.must("email", "attachments", id, "--inbox", address).stdout; !strings.Contains(listed, "1  calendar.ics  text/calendar") {
		t.Fatalf("attachments:\n%s", listed)
	}
	dir := t.TempDir()
	h.must("email", "attachments", id, "--inbox", address, "--all", "--dir", dir)
	if _, err := os.Stat(filepath.Join(dir, "calendar.ics")); err != nil {
		t.Fatalf("saved as: %v", err)
	}
	if r := h.run("email", "attachments", id, "--inbox", address, "--save", "2"); !strings.Contains(r.stderr, "the email has 1 attachment\n") && !strings.HasSuffix(strings.TrimSpace(r.stderr), "the email has 1 attachment") {
		t.Fatalf("--save 2: %q", r.stderr)
	}

	if r := h.run("wait", "--inbox", address, "--subject", "^never$", "--timeout", "0", "--json"); r.code != exitTimeout || r.stdout != "[]\n" {
		t.Fatalf("wait --json on timeout: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := h.must("inbox", "delete", "--all"); r.stdout != "deleted 1 inbox\n" {
		t.Fatalf("inbox delete --all: %q", r.stdout)
	}
}
