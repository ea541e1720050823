package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/client/smtpsend"
)

// markerMail has an HTML part with a link and an attachment: every key
// that would act on the box has something to act on.
const markerMail = "From: app@example.org\r\nTo: someone@elsewhere.example\r\nSubject: Marker 4471\r\n" +
	"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n" +
	"--XX\r\nContent-Type: text/html\r\n\r\n<p>Reset: <a href=\"https://example.org/reset\">https://example.org/reset</a></p>\r\n" +
	"--XX\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"report.bin\"\r\n" +
	"Content-Transfer-Encoding: base64\r\n\r\naGVsbG8=\r\n--XX--\r\n"

// tmuxSession is a terminal of a test: a tmux server of its own.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// waitFor waits until the screen shows want, and returns the screen.
func (s tmuxSession) waitFor(ctx context.Context, want string) string {
	s.t.Helper()
	for {
		screen := s.tmux("capture-pane", "-p", "-t", "t")
		if strings.Contains(screen, want) {
			return screen
		}
		select {
		case <-ctx.Done():
			s.t.Fatalf("%q never showed; the screen:\n%s", want, screen)
		case <-time.After(50 * time.Millisecond): // the next frame
		}
	}
}

// waitGone waits until the screen no longer shows text.
func (s tmuxSession) waitGone(ctx context.Context, text string) {
	s.t.Helper()
	for {
		screen := s.tmux("capture-pane", "-p", "-t", "t")
		if !strings.Contains(screen, text) {
			return
		}
		select {
		case <-ctx.Done():
			s.t.Fatalf("%q stayed; the screen:\n%s", text, screen)
		case <-time.After(50 * time.Millisecond): // the next frame
		}
	}
}

// TestSSHTUIRunsAndWritesNothingOnTheBox: a real OpenSSH client in tmux,
// whose SetEnv points BROWSER and SHELL at a program that leaves a marker
// file and SANDVIEW_HOME at a folder of its choice, presses |, v, o, s and
// S in the reader over SSH: no marker appears, nothing is written, and
// each key shows the command to run on the user's own machine.
func TestSSHTUIRunsAndWritesNothingOnTheBox(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed (.ci/run installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	alice := newUserKey(t, "alice")
	b := startSSHBox(t, ctx, alice.line+"\n")
	marks := t.TempDir()
	marker := filepath.Join(marks, "mark.sh")
	if err := os.WriteFile(marker, []byte("#!/bin/sh\ntouch "+marks+"/ran-$$\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := smtpsend.Send(context.Background(), b.smtpAddr, "app@example.org", []string{"someone@elsewhere.example"}, []byte(markerMail)); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(b.sshAddr)
	ssh := append([]string{"ssh", "-tt", "-p", port}, opensshArgs(opensshKeyFile(t, alice))...)
	ssh = append(ssh, "-o", fmt.Sprintf("SetEnv=BROWSER=%s SHELL=%s PAGER=%s SANDVIEW_HOME=%s/home", marker, marker, marker, marks), "tester@"+host)
	term := tmuxSession{t: t, socket: fmt.Sprintf("sandview-test-%d", os.Getpid())}
	quoted := make([]string, len(ssh))
	for i, arg := range ssh {
		quoted[i] = "'" + arg + "'"
	}
	term.tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", strings.Join(quoted, " ")+"; sleep 60")
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", term.socket, "kill-server").Run() })

	term.waitFor(ctx, "Marker 4471")
	term.tmux("send-keys", "-t", "t", "Enter")
	term.waitFor(ctx, "Reset:")
	scp := "scp -P " + port + " " + host + ":qa@sandbox.test/"
	for _, step := range []struct {
		keys, shows string
		dialog      bool
	}{
		{"|", scp, true},
		{"v", scp, true},
		{"s", scp, true},
		{"S", "scp -r -P " + port + " " + host + ":qa@sandbox.test/", true},
		{"3", "https://example.org/reset", false},
		{"o", "copied the link", false},
		{"4", "report.bin", false},
		{"o", "/report.bin .", true},
	} {
		term.tmux("send-keys", "-t", "t", "-l", step.keys)
		term.waitFor(ctx, step.shows)
		if step.dialog {
			term.waitFor(ctx, "Over SSH nothing is run or written on the box")
			term.tmux("send-keys", "-t", "t", "Escape")
			term.waitGone(ctx, "Over SSH nothing is run")
		}
	}
	if entries, _ := os.ReadDir(marks); len(entries) != 1 {
		t.Errorf("the box ran or wrote something: %v", entries)
	}
	var written []string
	_ = filepath.WalkDir(filepath.Dir(b.keysFile), func(path string, d os.DirEntry, _ error) error {
		if d != nil && !d.IsDir() && (strings.HasSuffix(path, ".eml") || strings.Contains(path, "report")) {
			written = append(written, path)
		}
		return nil
	})
	if len(written) > 0 {
		t.Errorf("files written on the box: %v", written)
	}
}

// TestSSHViewerDeleteRefusedOnScreen: a key with role="viewer" presses d
// on the catch-all's mail in the TUI over real OpenSSH: the screen says
// the server refused it and why, and the mail is still there for everyone.
func TestSSHViewerDeleteRefusedOnScreen(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed (.ci/run installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	vic, alice := newUserKey(t, "vic"), newUserKey(t, "alice")
	b := startSSHBox(t, ctx, `role="viewer" `+vic.line+"\n"+alice.line+"\n")
	if err := smtpsend.Send(context.Background(), b.smtpAddr, "app@example.org", []string{"someone@elsewhere.example"}, []byte(markerMail)); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(b.sshAddr)
	ssh := append([]string{"ssh", "-tt", "-p", port}, opensshArgs(opensshKeyFile(t, vic))...)
	term := tmuxSession{t: t, socket: fmt.Sprintf("sandview-viewer-%d", os.Getpid())}
	term.tmux("new-session", "-d", "-s", "t", "-x", "160", "-y", "40", strings.Join(append(ssh, "tester@"+host), " ")+"; sleep 60")
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", term.socket, "kill-server").Run() })
	term.waitFor(ctx, "Marker 4471")
	term.tmux("send-keys", "-t", "t", "d")
	term.waitFor(ctx, "Delete the email")
	term.tmux("send-keys", "-t", "t", "y")
	term.waitFor(ctx, "not deleted: delete email on qa@sandbox.test is not allowed for role viewer")
	if out := b.runOK(alice, "email list --inbox qa@sandbox.test --json"); !strings.Contains(out, "Marker 4471") {
		t.Fatalf("the mail went:\n%s", out)
	}
}
