package cli

// Tests of `sandview sendmail`: the real binary, built into a temporary
// directory, piping messages to the embedded server's SMTP port.

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sandview/server"
	"sandview/server/servertest"
)

// sendmail runs `sandview sendmail args` (bin: the binary, or a link to
// it) with msg on its standard input and SMTP_HOST/SMTP_PORT naming
// smtpAddr (none when "").
func (c *cli) sendmail(bin, smtpAddr, msg string, args ...string) cliRun {
	c.t.Helper()
	cmd := exec.CommandContext(c.ctx, bin, args...)
	cmd.Env = append(os.Environ(), "SERVICE_URL=", "SERVICE_API_KEY=", "SMTP_HOST=", "SMTP_PORT=", "SANDVIEW_HOME="+c.home)
	if smtpAddr != "" {
		host, port, err := net.SplitHostPort(smtpAddr)
		if err != nil {
			c.t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, "SMTP_HOST="+host, "SMTP_PORT="+port)
	}
	cmd.Stdin = strings.NewReader(msg)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		c.t.Fatal(err)
	}
	return cliRun{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
}

// onlyMail is the one mail the inbox holds, shown with --json.
func (c *cli) onlyMail(inbox string) emailView {
	c.t.Helper()
	c.must("wait", "--inbox", inbox, "--timeout", "20s")
	listed := decodeJSON[[]emailView](c.t, c.must("email", "list", "--inbox", inbox, "--json"))
	if len(listed) != 1 {
		c.t.Fatalf("%s holds %d mails, want 1: %+v", inbox, len(listed), listed)
	}
	return decodeJSON[emailView](c.t, c.must("email", "show", listed[0].ID, "--inbox", inbox, "--json"))
}

const sendmailCatchAll = "qa@sandbox.test"

// TestSendmailDeliversWithHeadersAndEnvelope: -t takes the recipients
// from To, Cc and Bcc, the Bcc header does not reach the server, -f is
// the envelope sender, and with -i a line of a single "." is mail.
func TestSendmailDeliversWithHeadersAndEnvelope(t *testing.T) {
	h := newCLI(t, func(c *server.Config) { c.CatchAll = sendmailCatchAll })
	msg := "From: Shop <shop@example.org>\nTo: Ann <ann@example.org>\nCc: cc@example.org\n" +
		"Bcc: hidden@example.org\nSubject: Your order\n\nline one\n.\nafter the dot\n"
	if r := h.sendmail(builtBinary, h.srv.SMTPAddr(), msg, "sendmail", "-t", "-i", "-f", "bounce@app.example"); r.code != 0 {
		t.Fatalf("sendmail: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	got := h.onlyMail(sendmailCatchAll)
	if got.Envelope == nil || got.Envelope.From != "bounce@app.example" {
		t.Fatalf("envelope %+v: want MAIL FROM bounce@app.example", got.Envelope)
	}
	for _, rcpt := range []string{"ann@example.org", "cc@example.org", "hidden@example.org"} {
		if !slices.Contains(got.Envelope.To, rcpt) {
			t.Errorf("envelope recipients %q lack %s", got.Envelope.To, rcpt)
		}
	}
	if got.From != `"Shop" <shop@example.org>` && got.From != "Shop <shop@example.org>" || got.Subject != "Your order" {
		t.Errorf("from %q subject %q", got.From, got.Subject)
	}
	if !strings.Contains(strings.ReplaceAll(got.Text, "\r\n", "\n"), "line one\n.\nafter the dot") {
		t.Errorf("text %q: want the lone dot and what follows it", got.Text)
	}
	raw := h.must("email", "raw", got.ID, "--inbox", sendmailCatchAll).stdout
	if strings.Contains(strings.ToLower(raw), "bcc") || strings.Contains(raw, "hidden@example.org") {
		t.Errorf("the Bcc header reached the server:\n%s", raw)
	}
}

// TestSendmailStopsAtALoneDotAndRunsAsSendmail: without -i a line of a
// single "." ends the message; a link named sendmail runs the command;
// recipients as arguments, -F names a message without From.
func TestSendmailStopsAtALoneDotAndRunsAsSendmail(t *testing.T) {
	h := newCLI(t, func(c *server.Config) { c.CatchAll = sendmailCatchAll })
	link := filepath.Join(t.TempDir(), "sendmail")
	if err := os.Symlink(builtBinary, link); err != nil {
		t.Fatal(err)
	}
	msg := "Subject: cut\n\nbefore\n.\nafter\n"
	if r := h.sendmail(link, h.srv.SMTPAddr(), msg, "-F", "Cron Daemon", "-f", "cron@example.org", "root@example.org"); r.code != 0 {
		t.Fatalf("sendmail as sendmail: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	got := h.onlyMail(sendmailCatchAll)
	if strings.Contains(got.Text, "after") || !strings.Contains(got.Text, "before") {
		t.Errorf("text %q: want it to end at the lone dot", got.Text)
	}
	if got.From != `"Cron Daemon" <cron@example.org>` || got.Envelope == nil || !slices.Equal(got.Envelope.To, []string{"root@example.org"}) {
		t.Errorf("from %q envelope %+v", got.From, got.Envelope)
	}
}

// TestSendmailExitCodes: sendmail's exit codes (sysexits), each with a
// line on stderr: 64 a bad command line, 65 no recipients, 67 a recipient
// the server refuses, 69 no server or none listening, 75 a 4xx answer.
func TestSendmailExitCodesEndToEnd(t *testing.T) {
	h := newCLI(t) // no catch-all: unknown recipients are refused
	catchAll := newCLI(t, func(c *server.Config) { c.CatchAll = sendmailCatchAll })
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	many := make([]string, 101) // one more than the server's recipients limit: 452
	for i := range many {
		many[i] = "r" + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + "@sandbox.test"
	}
	for _, c := range []struct {
		name, smtp string
		args       []string
		want       int
		stderr     string
	}{
		{"bad option", h.srv.SMTPAddr(), []string{"-x", "a@b.test"}, exUsage, "unknown option -x"},
		{"-f without value", h.srv.SMTPAddr(), []string{"-t", "-f"}, exUsage, "-f needs a value"},
		{"no recipients", h.srv.SMTPAddr(), []string{"-i"}, exDataErr, "no recipients"},
		{"unknown inbox", h.srv.SMTPAddr(), []string{"nobody@sandbox.test"}, exNoUser, "no inbox nobody@sandbox.test"},
		{"nothing listening", closedAddr, []string{"a@b.test"}, exUnavailable, "connect to SMTP"},
		{"no server known", "", []string{"a@b.test"}, exUnavailable, "no SMTP server to send to"},
		{"too many recipients", catchAll.srv.SMTPAddr(), many, exTempFail, "Maximum limit of 100 recipients"},
	} {
		r := h.sendmail(builtBinary, c.smtp, "Subject: x\n\nhi\n", append([]string{"sendmail"}, c.args...)...)
		if r.code != c.want || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%s: exit %d, %q; want %d with %q", c.name, r.code, r.stderr, c.want, c.stderr)
		}
	}
	help := h.sendmail(builtBinary, "", "", "sendmail", "--help")
	if help.code != 0 || !strings.Contains(help.stdout, "-i, -oi") || !strings.Contains(help.stdout, "Exit codes (sysexits)") ||
		strings.Contains(help.stdout, "Global Flags") || strings.Contains(help.stdout, "--help   help for") {
		t.Errorf("sendmail --help: exit %d, %q", help.code, help.stdout)
	}
}

// TestDocsPHPMailThroughSendmail runs docs/apps.md's PHP mail() snippet
// as written, with its sendmail_path (the built binary's path for
// /usr/local/bin/sandview) in a conf.d file of Debian's php-cli: the mail
// arrives in the catch-all with its code, From and envelope.
func TestDocsPHPMailThroughSendmail(t *testing.T) {
	php, err := exec.LookPath("php")
	if err != nil {
		t.Fatal("php is needed for this test (apt-get install php-cli: .ci/run does)")
	}
	h := newCLI(t, func(c *server.Config) { c.CatchAll = sendmailCatchAll })
	ini := docSnippet(t, "php-sendmail-ini")
	const installed = "/usr/local/bin/sandview sendmail -t -i"
	if !strings.Contains(ini, installed) {
		t.Fatalf("the php.ini snippet %q does not set %q", ini, installed)
	}
	dir := t.TempDir()
	ini = strings.Replace(ini, "/usr/local/bin/sandview", builtBinary, 1)
	if err := os.WriteFile(filepath.Join(dir, "sandview.ini"), []byte(ini), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "send.php"), []byte(docSnippet(t, "php-mail")), 0o600); err != nil {
		t.Fatal(err)
	}
	host, port, err := net.SplitHostPort(h.srv.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(h.ctx, php, "send.php")
	cmd.Dir = dir
	// A leading ":" keeps php-cli's own conf.d and adds dir.
	cmd.Env = append(os.Environ(), "PHP_INI_SCAN_DIR=:"+dir, "SMTP_HOST="+host, "SMTP_PORT="+port, "SANDVIEW_HOME="+h.home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("php send.php: %v\n%s", err, out)
	}
	code := h.run("wait", "--inbox", sendmailCatchAll, "--to", "new-user@example.org", "--subject", "^Welcome to Acme$",
		"--timeout", "20s", "--extract", "code")
	if code.code != 0 || code.stdout != "482913\n" {
		t.Fatalf("the PHP mail: exit %d, %q %q", code.code, code.stdout, code.stderr)
	}
	got := h.onlyMail(sendmailCatchAll)
	if got.From != "app@example.org" || !slices.Equal(got.To, []string{"new-user@example.org"}) ||
		got.Envelope == nil || got.Envelope.From != "app@example.org" || !slices.Equal(got.Envelope.To, []string{"new-user@example.org"}) {
		t.Fatalf("the PHP mail: %+v (envelope %+v)", got, got.Envelope)
	}
}

// TestSendmailAndSendSTARTTLS: to a server offering STARTTLS with a
// certificate of its own, sendmail and send go plain by default;
// --tls-ca with that certificate sends over STARTTLS; --starttls alone
// (the system's CAs) refuses to send; a --tls-ca that is no certificate
// is a usage error.
func TestSendmailAndSendSTARTTLS(t *testing.T) {
	serverTLS, certPEM := servertest.SelfSignedTLS(t)
	h := newCLI(t, func(c *server.Config) { c.CatchAll = sendmailCatchAll; c.SMTP.TLSConfig = serverTLS })
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := h.srv.SMTPAddr()
	for _, args := range [][]string{
		{"sendmail", "a@example.org"},
		{"sendmail", "--tls-ca", ca, "b@example.org"},
	} {
		if r := h.sendmail(builtBinary, addr, "Subject: tls\n\nhi\n", args...); r.code != 0 {
			t.Fatalf("%v: exit %d, %q", args, r.code, r.stderr)
		}
	}
	for _, args := range [][]string{
		{"send", "--smtp", addr, "--to", "c@example.org"},
		{"send", "--smtp", addr, "--tls-ca", ca, "--to", "d@example.org"},
	} {
		if r := h.run(args...); r.code != 0 {
			t.Fatalf("%v: exit %d, %q", args, r.code, r.stderr)
		}
	}
	h.must("wait", "--inbox", sendmailCatchAll, "--count", "4", "--timeout", "20s")
	if r := h.sendmail(builtBinary, addr, "Subject: tls\n\nhi\n", "sendmail", "--starttls", "e@example.org"); r.code != exUnavailable || !strings.Contains(r.stderr, "certificate") {
		t.Fatalf("--starttls with an unknown certificate: exit %d, %q", r.code, r.stderr)
	}
	if r := h.run("send", "--smtp", addr, "--starttls", "--to", "f@example.org"); r.code != exitFailure || !strings.Contains(r.stderr, "certificate") {
		t.Fatalf("send --starttls with an unknown certificate: exit %d, %q", r.code, r.stderr)
	}
	if r := h.sendmail(builtBinary, addr, "Subject: tls\n\nhi\n", "sendmail", "--tls-ca", "/dev/null", "g@example.org"); r.code != exUsage || !strings.Contains(r.stderr, "no PEM certificate") {
		t.Fatalf("--tls-ca without a certificate: exit %d, %q", r.code, r.stderr)
	}
	if listed := decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", sendmailCatchAll, "--json")); len(listed) != 4 {
		t.Fatalf("%d mails, want the 4 sent plain and over verified TLS", len(listed))
	}
}
