package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pkg/sftp"

	"sandview/client/smtpsend"
)

// mailWithAttachment is a multipart mail with one attachment whose name
// tries to leave the folder.
func mailWithAttachment(subject string, attachment []byte) []byte {
	var b bytes.Buffer
	b.WriteString("From: app@example.org\r\nTo: someone@elsewhere.example\r\nSubject: " + subject + "\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n" +
		"--XX\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n" +
		"--XX\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"../../report.bin\"\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n")
	b.WriteString(base64Lines(attachment))
	b.WriteString("--XX--\r\n")
	return b.Bytes()
}

// opensshArgs are the options of OpenSSH's clients for the box.
func opensshArgs(keyFile string) []string {
	return []string{"-F", "/dev/null", "-i", keyFile, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"}
}

// TestSSHDownloadsOverSFTP: OpenSSH's scp (which speaks SFTP) and sftp
// -b download a mail byte for byte as `email raw` prints it and an
// attachment as sent; a user sees the catch-all and its own inboxes,
// never another's; writes, removals, renames, links, setstat, paths out
// of the tree, NUL and overlong names are refused.
func TestSSHDownloadsOverSFTP(t *testing.T) {
	for _, tool := range []string{"scp", "sftp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("OpenSSH's %s is needed (.ci/run installs openssh-client): %v", tool, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	alice, bob := newUserKey(t, "alice"), newUserKey(t, "bob")
	b := startSSHBox(t, ctx, alice.line+"\n"+bob.line+"\n")
	attachment := bytes.Repeat([]byte{0, 1, 2, 0xff, 'x'}, 40000)
	if err := smtpSend(b.smtpAddr, "someone@elsewhere.example", mailWithAttachment("attached 5512", attachment)); err != nil {
		t.Fatal(err)
	}
	b.runOK(bob, "inbox create --address bob-files@sandbox.test")
	b.send("bob-files@sandbox.test", "bob's own 8810", "private")
	b.runOK(bob, "wait --inbox bob-files@sandbox.test --timeout 30s")
	out := b.runOK(alice, "wait --subject 'attached 5512' --timeout 30s --json")
	id := decodeJSON[[]emailView](t, cliRun{stdout: out})[0].ID
	raw := b.runOK(alice, "email raw "+id)

	keyFile := opensshKeyFile(t, alice)
	host, port, _ := net.SplitHostPort(b.sshAddr)
	dir := t.TempDir()
	scp := func(remote, local string) error {
		args := append(opensshArgs(keyFile), "-P", port, "alice@"+host+":"+remote, local)
		out, err := exec.CommandContext(ctx, "scp", args...).CombinedOutput()
		if err != nil {
			return errors.New(err.Error() + ": " + string(out))
		}
		return nil
	}
	if err := scp("qa@sandbox.test/"+id+".eml", filepath.Join(dir, "mail.eml")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "mail.eml")); string(got) != raw {
		t.Fatalf("scp's mail differs from email raw (%d and %d bytes)", len(got), len(raw))
	}
	if err := scp("qa@sandbox.test/"+id+"/report.bin", filepath.Join(dir, "report.bin")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "report.bin")); !bytes.Equal(got, attachment) {
		t.Fatalf("scp's attachment differs from the one sent (%d and %d bytes)", len(got), len(attachment))
	}
	// Saving on the box is refused with the scp command that downloads.
	_, errOut, code := b.run(alice.signer, "email attachments "+id+" --all --dir /tmp")
	if want := "download with scp -P " + port + " " + host + ":ADDRESS/ID/ATTACHMENT-NAME"; code != exitUsage || !strings.Contains(errOut, want) {
		t.Fatalf("email attachments --all over SSH: exit %d, %q; want %q", code, errOut, want)
	}
	if err := scp("bob-files@sandbox.test/", filepath.Join(dir, "bob")); err == nil {
		t.Fatal("alice copied from bob's inbox")
	}

	batch := filepath.Join(dir, "batch")
	script := "cd qa@sandbox.test\nget " + id + ".eml sftp.eml\nget " + id + "/report.bin sftp.bin\n"
	if err := os.WriteFile(batch, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "sftp", append(opensshArgs(keyFile), "-P", port, "-b", batch, "alice@"+host)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sftp -b: %v: %s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sftp.eml")); string(got) != raw {
		t.Fatal("sftp's mail differs from email raw")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sftp.bin")); !bytes.Equal(got, attachment) {
		t.Fatal("sftp's attachment differs from the one sent")
	}

	// The same tree through pkg/sftp's client: what may not be done.
	c, err := b.dial(alice.signer)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fs, err := sftp.NewClient(c)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	entries, err := fs.ReadDir("/")
	if err != nil || len(entries) != 1 || entries[0].Name() != "qa@sandbox.test" || !entries[0].IsDir() {
		t.Fatalf("alice's root: %v, %v", entries, err)
	}
	names, err := fs.ReadDir("/qa@sandbox.test/" + id)
	if err != nil || len(names) != 1 || names[0].Name() != "report.bin" || names[0].Size() != int64(len(attachment)) {
		t.Fatalf("the mail's folder: %v, %v", names, err)
	}
	if info, err := fs.Stat("/qa@sandbox.test/" + id + ".eml"); err != nil || info.Size() != int64(len(raw)) {
		t.Fatalf("stat of the mail: %v, %v", info, err)
	}
	mail := "/qa@sandbox.test/" + id + ".eml"
	for what, err := range map[string]error{
		"create":   func() error { _, err := fs.Create("/qa@sandbox.test/new.eml"); return err }(),
		"write":    func() error { _, err := fs.OpenFile(mail, os.O_WRONLY); return err }(),
		"remove":   fs.Remove(mail),
		"rename":   fs.Rename(mail, "/qa@sandbox.test/x.eml"),
		"mkdir":    fs.Mkdir("/qa@sandbox.test/d"),
		"rmdir":    fs.RemoveDirectory("/qa@sandbox.test"),
		"symlink":  fs.Symlink("/etc/passwd", "/qa@sandbox.test/link"),
		"chmod":    fs.Chmod(mail, 0o777),
		"truncate": fs.Truncate(mail, 0),
	} {
		if !errors.Is(err, os.ErrPermission) {
			t.Errorf("%s in the read-only tree: %v, want permission denied", what, err)
		}
	}
	for _, p := range []string{"../../../etc/passwd", "/etc/passwd", "/qa@sandbox.test/../../etc/passwd",
		"/bob-files@sandbox.test", "/bob-files@sandbox.test/x.eml", "/qa@sandbox.test/" + id + ".eml\x00.txt",
		"/qa@sandbox.test/" + strings.Repeat("a", 5000) + ".eml", "/qa@sandbox.test/" + id + "/../../../x"} {
		f, err := fs.Open(p)
		if err == nil {
			got, _ := io.ReadAll(f)
			f.Close()
			t.Errorf("%q opened (%d bytes)", p, len(got))
		}
	}
	if _, err := fs.ReadDir("/bob-files@sandbox.test"); err == nil {
		t.Error("alice listed bob's inbox")
	}
	if _, err := fs.ReadLink(mail); err == nil {
		t.Error("a file of the tree is a link")
	}
}

// smtpSend sends a whole message over SMTP.
func smtpSend(addr, to string, msg []byte) error {
	return smtpsend.Send(context.Background(), addr, "app@example.org", []string{to}, msg)
}

// base64Lines is data in base64, in lines of 76 characters.
func base64Lines(data []byte) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n")
	return b.String()
}

// TestSSHClientEnvironmentReachesNoSetting: OpenSSH's ssh with SetEnv of
// SANDVIEW_HOME, XDG_CONFIG_HOME, SERVICE_URL, SERVICE_API_KEY, BROWSER
// and SHELL: the commands still run as the key's user against the box's
// server, and nothing is written where the variables point nor run.
func TestSSHClientEnvironmentReachesNoSetting(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Fatalf("OpenSSH's ssh is needed (.ci/run installs openssh-client): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	alice := newUserKey(t, "alice")
	b := startSSHBox(t, ctx, alice.line+"\n")
	elsewhere := t.TempDir()
	marker := filepath.Join(elsewhere, "ran")
	script := filepath.Join(elsewhere, "open.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(b.sshAddr)
	args := append(opensshArgs(opensshKeyFile(t, alice)), "-p", port,
		"-o", "SetEnv=SANDVIEW_HOME="+elsewhere+" XDG_CONFIG_HOME="+elsewhere+" SERVICE_URL=http://127.0.0.1:1 SERVICE_API_KEY=stolen BROWSER="+script+" SHELL="+script,
		"alice@"+host)
	for _, line := range []string{"inbox create --address env-test@sandbox.test --json", "email list --inbox env-test@sandbox.test --json", "inbox list --json"} {
		out, err := exec.CommandContext(ctx, "ssh", append(args, line)...).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh %s: %v: %s", line, err, out)
		}
	}
	entries, err := os.ReadDir(elsewhere)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 { // open.sh alone
		t.Fatalf("the session's environment reached a setting: %v", entries)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatal("a program of the client's environment ran on the box")
	}
}
