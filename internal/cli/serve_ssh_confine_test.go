package cli

import (
	"context"
	"encoding/pem"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"sandview/client/smtpsend"
)

// runOK runs a command over SSH and fails the test unless it exits 0.
func (b *sshBox) runOK(key userKey, command string) string {
	b.t.Helper()
	out, errOut, code := b.run(key.signer, command)
	if code != 0 {
		b.t.Fatalf("ssh %s: exit %d: %s%s", command, code, out, errOut)
	}
	return out
}

func (b *sshBox) send(to, subject, body string) {
	b.t.Helper()
	if err := smtpsend.Send(context.Background(), b.smtpAddr, "app@example.org", []string{to},
		[]byte("Subject: "+subject+"\r\n\r\n"+body+"\r\n")); err != nil {
		b.t.Fatal(err)
	}
}

// TestSSHUsersActOnlyOnWhatIsTheirs, over real SSH connections: a new
// key's first command sees the catch-all; a member's `inbox delete --all`
// deletes only its own inboxes, never another's nor the catch-all; a
// webhook on another user's inbox and another's keystore file are
// refused; a viewer's delete of shared mail is refused (exit code and
// message) and the mail stays; a mistyped command gets "did you mean";
// the log holds the login, the delete and the refusals.
func TestSSHUsersActOnlyOnWhatIsTheirs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	alice, bob, vic := newUserKey(t, "alice"), newUserKey(t, "bob"), newUserKey(t, "vic")
	b := startSSHBox(t, ctx, alice.line+"\n"+bob.line+"\n"+`role="viewer" `+vic.line+"\n")

	b.send("someone@elsewhere.example", "for the team 4471", "hello")
	// The first command of a new key: the catch-all is its only inbox.
	out := b.runOK(alice, "wait --subject 'for the team 4471' --timeout 30s --json")
	if !strings.Contains(out, "for the team 4471") {
		t.Fatalf("alice's first command: %s", out)
	}
	listed := decodeJSON[[]emailView](t, cliRun{stdout: b.runOK(bob, "email list --json")})
	if len(listed) != 1 || listed[0].Subject != "for the team 4471" {
		t.Fatalf("bob's first email list: %+v", listed)
	}
	if out := b.runOK(vic, "inbox list --json"); !strings.Contains(out, "qa@sandbox.test") {
		t.Fatalf("vic's first inbox list lacks the catch-all: %s", out)
	}

	b.runOK(alice, "inbox create --address alice-1@sandbox.test")
	b.runOK(bob, "inbox create --address bob-1@sandbox.test")
	b.send("bob-1@sandbox.test", "for bob 9120", "hello bob")
	b.runOK(bob, "wait --inbox bob-1@sandbox.test --subject 'for bob 9120' --timeout 30s")

	// Another user's inbox, by address and by its keystore file.
	if _, errOut, code := b.run(alice.signer, "email list --inbox bob-1@sandbox.test"); code == 0 {
		t.Fatalf("alice read bob's inbox: %s", errOut)
	}
	// The endpoint needs no DNS lookup (a documentation address, RFC 5737).
	_, errOut, code := b.run(alice.signer, "webhook create --inbox bob-1@sandbox.test --endpoint https://198.51.100.10/x")
	if code == 0 {
		t.Fatalf("alice created a webhook on bob's inbox: %s", errOut)
	}
	keystoreFile := b.keysFile // any path of the box
	if _, errOut, code := b.run(alice.signer, "inbox import "+keystoreFile); code != exitUsage || !strings.Contains(errOut, "inbox import - < inbox.json") {
		t.Fatalf("inbox import of a path of the box: exit %d, %q", code, errOut)
	}

	// alice's delete --all: hers only.
	if out := b.runOK(alice, "inbox delete --all"); !strings.Contains(out, "deleted 1 inbox") {
		t.Fatalf("alice's delete --all: %q", out)
	}
	if out := b.runOK(bob, "email list --inbox bob-1@sandbox.test --json"); !strings.Contains(out, "for bob 9120") {
		t.Fatalf("bob's mail went with alice's delete --all: %s", out)
	}
	if out := b.runOK(bob, "email list --inbox qa@sandbox.test --json"); !strings.Contains(out, "for the team 4471") {
		t.Fatalf("the catch-all went with alice's delete --all: %s", out)
	}

	// The viewer may not delete shared mail.
	_, errOut, code = b.run(vic.signer, "email delete "+listed[0].ID+" --inbox qa@sandbox.test")
	if code != exitFailure || !strings.Contains(errOut, "viewer") {
		t.Fatalf("vic's delete of shared mail: exit %d, %q", code, errOut)
	}
	if out := b.runOK(bob, "email list --inbox qa@sandbox.test --json"); !strings.Contains(out, listed[0].ID) {
		t.Fatal("the viewer's refused delete deleted the mail")
	}

	// "did you mean" as locally, among the commands SSH allows.
	if _, errOut, code := b.run(bob.signer, "emial list"); code != exitUsage || !strings.Contains(errOut, `did you mean "email"?`) {
		t.Fatalf("emial list: exit %d, %q", code, errOut)
	}
	if _, errOut, code := b.run(bob.signer, "email opne X"); code != exitUsage || strings.Contains(errOut, `"open"`) {
		t.Fatalf("email opne suggests a refused command: exit %d, %q", code, errOut)
	}

	// With a terminal (ssh -t), email raw is sanitized as on a local one.
	b.send("someone@elsewhere.example", "escape \x1b]0;owned\x07 9931", "body \x1b[2J")
	b.runOK(bob, "wait --inbox qa@sandbox.test --subject 'escape' --timeout 30s")
	var escID string
	for _, e := range decodeJSON[[]emailView](t, cliRun{stdout: b.runOK(bob, "email list --inbox qa@sandbox.test --json")}) {
		if strings.Contains(e.Subject, "9931") {
			escID = e.ID
		}
	}
	if raw := b.runOK(bob, "email raw --inbox qa@sandbox.test "+escID); !strings.Contains(raw, "\x1b") {
		t.Fatalf("email raw without a terminal lost the bytes: %q", raw)
	}
	if raw := b.runPty(bob, "email raw --inbox qa@sandbox.test "+escID); strings.Contains(raw, "\x1b") || !strings.Contains(raw, "9931") {
		t.Fatalf("email raw on a terminal over SSH: %q", raw)
	}

	// bob's key taken out of the file: refused at once, its principal revoked.
	if err := os.WriteFile(b.keysFile, []byte(alice.line+"\n"+`role="viewer" `+vic.line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for {
		c, err := b.dial(bob.signer)
		if err != nil {
			break
		}
		c.Close()
		select {
		case <-ctx.Done():
			t.Fatal("a removed key still logs in")
		case <-time.After(50 * time.Millisecond):
		}
	}

	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Wait(); err != nil {
		t.Fatalf("serve did not stop cleanly: %v", err)
	}
	log := b.output()
	for _, want := range []string{
		`event=revoked fp=SHA256:\S+ user=bob`,
		`event=login fp=SHA256:\S+ user=alice role=member remote=\S+ kind=command`,
		`event=delete user=alice fp=\S+ role=member inbox=\* inboxes=1`,
		`event=refused user=vic fp=\S+ role=viewer .*action="delete email" inbox=qa@sandbox.test`,
		`event=refused user=alice .*inbox=bob-1@sandbox.test`,
	} {
		if !regexp.MustCompile(want).MatchString(log) {
			t.Errorf("the log has no line matching %s:\n%s", want, log)
		}
	}
}

// opensshKeyFile writes key's private half as OpenSSH's client reads it.
func opensshKeyFile(t *testing.T, key userKey) string {
	t.Helper()
	block, err := gossh.MarshalPrivateKey(key.priv, "")
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/id_ed25519"
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// runPty runs a command line over SSH with a terminal (ssh -t) and
// returns what the terminal showed.
func (b *sshBox) runPty(key userKey, command string) string {
	b.t.Helper()
	c, err := b.dial(key.signer)
	if err != nil {
		b.t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		b.t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		b.t.Fatal(err)
	}
	out, err := s.Output(command)
	if err != nil {
		b.t.Fatalf("ssh -t %s: %v: %q", command, err, out)
	}
	return string(out)
}
