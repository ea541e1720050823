package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/client/smtpsend"
)

// welcomeMail is a template's mail; token, code and when are the values
// that change from one mail to the next, sentence one of its sentences.
func welcomeMail(token, code, when, sentence string) pyMail {
	m := goodMail("Welcome to Shop",
		"Hi Ada,\n\n"+sentence+"\nYour verification code is "+code+".\nConfirm: https://shop.example/confirm?token="+token+"&step=1\nSent "+when+".\n",
		`<h1>Welcome</h1><p>`+sentence+`</p><p>Your verification code is <b>`+code+`</b>.</p>`+
			`<p><a href="https://shop.example/confirm?token=`+token+`&step=1">Confirm your account</a></p><p>Order `+token[:8]+` · sent `+when+`</p>`)
	m.Headers["List-Unsubscribe"] = "<https://shop.example/unsub?u=" + token + ">"
	return m
}

// TestEmailSnapshotGolden: two mails of a template that differ only in
// their token, code and date have the same snapshot, so expect --golden
// passes; one that differs in a sentence fails with a unified diff;
// --update rewrites the file, after which it passes.
func TestEmailSnapshotGolden(t *testing.T) {
	h := newCLI(t)
	in1, first := sendPython(t, h, welcomeMail("q8Zr2kLm9XwT4vBn", "482913", "2026-11-21 10:04", "Thanks for signing up."))
	in2, second := sendPython(t, h, welcomeMail("Hf7sPq1ZcY0aWe3R", "105577", "2026-11-29 18:45", "Thanks for signing up."))
	in3, changed := sendPython(t, h, welcomeMail("Hf7sPq1ZcY0aWe3R", "105577", "2026-11-29 18:45", "Thanks for joining us."))

	snap := h.must("email", "snapshot", first, "--inbox", in1).stdout
	for _, want := range []string{"From: \"Shop\" <shop@example.org>\n", "Subject: Welcome to Shop\n", "List-Unsubscribe: <https://shop.example/unsub?u={u}>\n",
		"== text ==\nHi Ada,\n\nThanks for signing up.\nYour verification code is {code}.\nConfirm: https://shop.example/confirm?token={token}&step={step}\nSent {date}.\n",
		"== html as text ==\n", "Order {id} · sent {date}", "== links ==\nhttps://shop.example/confirm?token={token}&step={step}\n"} {
		if !strings.Contains(snap, want) {
			t.Errorf("the snapshot lacks %q:\n%s", want, snap)
		}
	}
	for _, volatile := range []string{"q8Zr2kLm9XwT4vBn", "482913", "2026-11-21", "10:04", "Date:", "Message-ID"} {
		if strings.Contains(snap, volatile) {
			t.Errorf("the snapshot holds %q:\n%s", volatile, snap)
		}
	}
	golden := filepath.Join(t.TempDir(), "welcome.golden")
	if err := os.WriteFile(golden, []byte(snap), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := outcomes(expectReport(t, h, 0, second, "--inbox", in2, "--golden", golden)); got["golden"] != "pass" {
		t.Errorf("a mail that differs only in its token: %v", got)
	}
	r := h.run("email", "expect", changed, "--inbox", in3, "--golden", golden)
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL  golden") || !strings.Contains(r.stdout, "--- "+golden+"\n+++ this mail\n") ||
		!strings.Contains(r.stdout, "-Thanks for signing up.\n+Thanks for joining us.\n") {
		t.Fatalf("a mail that differs in a sentence: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := h.run("email", "expect", changed, "--inbox", in3, "--golden", golden, "--update"); r.code != 0 || !strings.Contains(r.stdout, "PASS  golden") {
		t.Fatalf("--update: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	updated, err := os.ReadFile(golden)
	if err != nil || !strings.Contains(string(updated), "Thanks for joining us.") || strings.Contains(string(updated), "signing up") {
		t.Fatalf("the updated golden file (%v):\n%s", err, updated)
	}
	if left, _ := filepath.Glob(golden + "*"); len(left) != 1 {
		t.Errorf("--update left files behind: %v", left)
	}
	h.must("email", "expect", changed, "--inbox", in3, "--golden", golden)
	// A golden file that does not exist yet is written by --update.
	fresh := filepath.Join(t.TempDir(), "fresh.golden")
	h.must("email", "expect", first, "--inbox", in1, "--golden", fresh, "--update")
	if data, _ := os.ReadFile(fresh); string(data) != snap {
		t.Errorf("--update of a new file wrote:\n%s\nwant\n%s", data, snap)
	}
}

// TestEmailExpectBadInput: an unknown assertion, a malformed regular
// expression, a missing golden file and other bad flags exit 2 with one
// line saying what is wrong, before the server is asked anything.
func TestEmailExpectBadInput(t *testing.T) {
	h := newCLI(t)
	missing := filepath.Join(t.TempDir(), "welcome.golden")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ID", "--skip", "unsubscribe"}, `sandview: unknown assertion "unsubscribe": --skip takes verdict, html-size, text-part, list-unsubscribe, image-alt, remote-fonts-scripts, deceptive-links`},
		{[]string{"ID", "--min-spam", "3"}, "sandview: unknown flag: --min-spam"},
		{[]string{"ID", "--subject", "~Welcome (unclosed"}, `sandview: --subject "~Welcome (unclosed" is not a regular expression: error parsing regexp: missing closing ): ` + "`Welcome (unclosed`"},
		{[]string{"ID", "--golden", missing}, "sandview: --golden " + missing + ": no such file (write it with `sandview email snapshot ID > " + missing + "`, or pass --update)"},
		{[]string{"ID", "--verdict", "passed"}, `sandview: --verdict "passed": give pass or not-fail`},
		{[]string{"ID", "--update"}, "sandview: --update rewrites the file of --golden FILE: give it"},
		{[]string{}, "sandview: give an email's ID, or --wait QUERY"},
		{[]string{"ID", "--wait", "subject:x"}, "sandview: give an ID or --wait QUERY, not both"},
		{[]string{"--wait", "after:someday"}, `sandview: --wait "after:someday": `},
	} {
		r := h.run(append([]string{"email", "expect"}, tt.args...)...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("email expect %v: exit %d\nstderr %q\nwant %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}

// TestEmailExpectWait: --wait QUERY asserts on the first mail matching a
// search query, waiting for it; nothing matching within --timeout exits 3.
func TestEmailExpectWait(t *testing.T) {
	h := newCLI(t)
	inbox := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	finish := h.startWaiting("email", "expect", "--inbox", inbox, "--wait", `subject:"Reset your password"`, "--timeout", "60s",
		"--subject", "Reset your password", "--skip", "list-unsubscribe")
	msg := "From: a@example.org\r\nTo: " + inbox + "\r\nSubject: Reset your password\r\n\r\nReset: https://app.example/reset?t=1\r\n"
	if err := smtpsend.Send(context.Background(), h.srv.SMTPAddr(), "a@example.org", []string{inbox}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	if r := finish(); r.code != 0 || !strings.Contains(r.stdout, "PASS  subject") {
		t.Fatalf("expect --wait: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := h.run("email", "expect", "--inbox", inbox, "--wait", "subject:never", "--timeout", "1s")
	if r.code != exitTimeout || !strings.Contains(r.stderr, `timed out: no email matching "subject:never" arrived in `+inbox+" within 1s") {
		t.Fatalf("nothing matching: exit %d\n%s", r.code, r.stderr)
	}
}

// TestSSHExpectAndSnapshot: over a real SSH session expect and snapshot
// write only to standard output (--junit -), --golden reads standard input
// and a file is refused, --private and --update are refused.
func TestSSHExpectAndSnapshot(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	user := newUserKey(t, "ada@laptop")
	box := startSSHBox(t, ctx, user.line+"\n")
	msg := "From: a@example.org\r\nTo: anyone@example.org\r\nSubject: Over SSH\r\n\r\nYour code is 482913.\r\n"
	if err := smtpsend.Send(context.Background(), box.smtpAddr, "a@example.org", []string{"anyone@example.org"}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	list, errOut, code := box.run(user.signer, "wait --inbox qa@sandbox.test --timeout 20s --json")
	if code != 0 {
		t.Fatalf("wait: %d %s", code, errOut)
	}
	id := decodeJSON[[]emailView](t, cliRun{stdout: list})[0].ID
	snap, errOut, code := box.run(user.signer, "email snapshot --inbox qa@sandbox.test "+id)
	if code != 0 || !strings.Contains(snap, "Your code is {code}.") {
		t.Fatalf("snapshot over SSH: %d %s\n%s", code, errOut, snap)
	}
	stdout, stderr, code := runSSHWithStdin(t, box, user, "email expect --inbox qa@sandbox.test "+id+" --golden - --junit -", snap)
	if code != 1 || !strings.HasPrefix(stdout, "<?xml") || !strings.Contains(stdout, `<testcase name="golden"`) ||
		!strings.Contains(stderr, "PASS  golden") || !strings.Contains(stderr, "FAIL  list-unsubscribe") {
		t.Fatalf("expect over SSH: %d\n%s\n%s", code, stdout, stderr)
	}
	for command, want := range map[string]string{
		"email expect " + id + " --golden /etc/passwd": "--golden reads standard input",
		"email expect " + id + " --junit /tmp/x.xml":   "--junit writes to standard output",
		"email expect " + id + " --links --private":    "never checked on private addresses",
		"email expect " + id + " --golden - --update":  "nothing is written on the box",
	} {
		_, stderr, code := box.run(user.signer, command)
		if code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s over SSH: exit %d %q, want 2 with %q", command, code, stderr, want)
		}
	}
}

// runSSHWithStdin runs a command line over SSH with stdin as its input.
func runSSHWithStdin(t *testing.T, box *sshBox, user userKey, command, stdin string) (stdout, stderr string, code int) {
	t.Helper()
	c, err := box.dial(user.signer)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var o, e bytes.Buffer
	s.Stdin, s.Stdout, s.Stderr = strings.NewReader(stdin), &o, &e
	if err := s.Run(command); err != nil {
		code = -1
		if exit, ok := err.(interface{ ExitStatus() int }); ok {
			code = exit.ExitStatus()
		}
	}
	return o.String(), e.String(), code
}
