package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"sandview/client/smtpsend"
)

// sshBox is a `sandview serve --ssh` process of a test.
type sshBox struct {
	t                 testing.TB
	cmd               *exec.Cmd
	sshAddr, smtpAddr string
	hostKey           string
	keysFile          string
	stdout            *bufio.Scanner
	rest              chan string // the rest of stdout, once the process ends
	stderr            *bytes.Buffer
}

// userKey is an SSH user's key pair of a test.
type userKey struct {
	signer gossh.Signer
	priv   ed25519.PrivateKey
	line   string // its authorized_keys line
}

func newUserKey(t testing.TB, comment string) userKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey()))) + " " + comment
	return userKey{signer: signer, priv: priv, line: line}
}

// startSSHBox starts serve (SSH on, STARTTLS off: go-smtp's SendMail would
// not trust the certificate made at start) on random loopback ports with
// the given authorized_keys and a catch-all, and waits for its banner.
func startSSHBox(t testing.TB, ctx context.Context, authorized string, extra ...string) *sshBox {
	t.Helper()
	dir := t.TempDir()
	keys := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(keys, []byte(authorized), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--ssh", "127.0.0.1:0", "--smtp-starttls=false",
		"--ssh-authorized-keys", keys, "--data", filepath.Join(dir, "data"), "--catch-all", "qa@sandbox.test"}, extra...)
	cmd := exec.CommandContext(ctx, builtBinary, args...)
	cmd.Env = append(os.Environ(), "SVC_API_KEY=ssh-test-key")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &sshBox{t: t, cmd: cmd, keysFile: keys, stdout: bufio.NewScanner(out), rest: make(chan string, 1), stderr: &stderr}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for b.stdout.Scan() {
		line := strings.TrimSpace(b.stdout.Text())
		if v, ok := strings.CutPrefix(line, "SMTP"); ok {
			b.smtpAddr = strings.Fields(v)[0]
		}
		if v, ok := strings.CutPrefix(line, "SSH"); ok {
			b.sshAddr = strings.Fields(v)[0]
		}
		if v, ok := strings.CutPrefix(line, "host key"); ok {
			b.hostKey = strings.TrimSpace(v)
			break
		}
	}
	if b.sshAddr == "" || b.hostKey == "" || b.smtpAddr == "" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("no SSH banner; stderr:\n%s", stderr.String())
	}
	go func() {
		var rest strings.Builder
		for b.stdout.Scan() {
			rest.WriteString(b.stdout.Text() + "\n")
		}
		b.rest <- rest.String()
	}()
	return b
}

// output is what the process printed after its banner, stdout then
// stderr: call it once, after the process ended (cmd.Wait returned).
func (b *sshBox) output() string { return <-b.rest + b.stderr.String() }

// dial connects as key, checking the host key against the printed
// fingerprint.
func (b *sshBox) dial(key gossh.Signer) (*gossh.Client, error) {
	return gossh.Dial("tcp", b.sshAddr, &gossh.ClientConfig{
		User: "tester",
		Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error {
			if got := gossh.FingerprintSHA256(k); got != b.hostKey {
				return fmt.Errorf("host key %s, the banner said %s", got, b.hostKey)
			}
			return nil
		},
		Timeout: 20 * time.Second,
	})
}

// run runs one command line over SSH and returns its output and exit status.
func (b *sshBox) run(key gossh.Signer, command string) (stdout, stderr string, code int) {
	b.t.Helper()
	c, err := b.dial(key)
	if err != nil {
		b.t.Fatalf("ssh %s: %v", command, err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		b.t.Fatal(err)
	}
	defer s.Close()
	var o, e bytes.Buffer
	s.Stdout, s.Stderr = &o, &e
	err = s.Run(command)
	var exit *gossh.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitStatus()
	default:
		b.t.Fatalf("ssh %s: %v", command, err)
	}
	return o.String(), e.String(), code
}

// TestSSHUsersHaveTheirOwnInboxesAndShareTheCatchAll: over a real SSH
// connection an authorized key runs CLI commands as its own user; another
// key does not see that user's inboxes; an unknown key and a password are
// refused before any session; a key line that does not parse is skipped
// (the others still log in).
func TestSSHUsersHaveTheirOwnInboxesAndShareTheCatchAll(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	alice, bob, mallory := newUserKey(t, "alice@laptop"), newUserKey(t, "bob"), newUserKey(t, "mallory")
	b := startSSHBox(t, ctx, alice.line+"\nthis is not a key\n"+bob.line+"\n")

	if _, err := b.dial(mallory.signer); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("an unknown key logged in: %v", err)
	}
	_, err := gossh.Dial("tcp", b.sshAddr, &gossh.ClientConfig{
		User: "alice", Auth: []gossh.AuthMethod{gossh.Password("anything")},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 20 * time.Second,
	})
	if err == nil {
		t.Fatal("a password logged in")
	}

	out, errOut, code := b.run(alice.signer, "inbox create --address alice-run@sandbox.test --json")
	if code != 0 {
		t.Fatalf("alice: inbox create exit %d: %s", code, errOut)
	}
	var created struct {
		EmailAddress string `json:"emailAddress"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.EmailAddress != "alice-run@sandbox.test" {
		t.Fatalf("alice: inbox create printed %q (%v)", out, err)
	}
	if err := smtpsend.Send(context.Background(), b.smtpAddr, "app@example.org", []string{"alice-run@sandbox.test"},
		[]byte("Subject: for alice only\r\n\r\nhello\r\n")); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = b.run(alice.signer, "wait --inbox alice-run@sandbox.test --subject 'for alice only' --timeout 30s --json")
	if code != 0 || !strings.Contains(out, "for alice only") {
		t.Fatalf("alice: wait exit %d: %s %s", code, out, errOut)
	}
	out, _, code = b.run(bob.signer, "inbox list --json")
	if code != 0 || strings.Contains(out, "alice-run@sandbox.test") {
		t.Fatalf("bob sees alice's inboxes (exit %d): %s", code, out)
	}
	_, errOut, code = b.run(bob.signer, "email list --inbox alice-run@sandbox.test")
	if code == 0 {
		t.Fatalf("bob read alice's encrypted inbox: %s", errOut)
	}
	// Both users read the catch-all by address, with no keystore entry.
	if err := smtpsend.Send(context.Background(), b.smtpAddr, "app@example.org", []string{"anyone@elsewhere.example"},
		[]byte("Subject: for the team\r\n\r\nhello\r\n")); err != nil {
		t.Fatal(err)
	}
	for _, who := range []userKey{alice, bob} {
		out, errOut, code := b.run(who.signer, "wait --inbox qa@sandbox.test --subject 'for the team' --timeout 30s --json")
		if code != 0 || !strings.Contains(out, "for the team") {
			t.Fatalf("the catch-all over SSH: exit %d: %s %s", code, out, errOut)
		}
	}
	_, errOut, code = b.run(bob.signer, "serve")
	if code != exitUsage || !strings.Contains(errOut, "not available over SSH") {
		t.Fatalf("serve over SSH: exit %d %q", code, errOut)
	}
	_, errOut, code = b.run(bob.signer, "email list --url http://127.0.0.1:1")
	if code != exitUsage || !strings.Contains(errOut, "--url is not available over SSH") {
		t.Fatalf("--url over SSH: exit %d %q", code, errOut)
	}

	// A key added to the file logs in without a restart.
	f, err := os.OpenFile(b.keysFile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(mallory.line + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := b.run(mallory.signer, "inbox list"); code != 0 {
		t.Fatalf("a key added to the file is refused: exit %d %s", code, errOut)
	}

	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Wait(); err != nil {
		t.Fatalf("serve did not stop cleanly: %v", err)
	}
	log := b.output()
	if !regexp.MustCompile(`line=2 .*not a public key`).MatchString(log) {
		t.Fatalf("the bad key line is not logged with its number:\n%s", log)
	}
}

// termReader collects what a session's terminal shows, with escape
// sequences removed, and lets a test wait for a text.
type termReader struct {
	mu   sync.Mutex
	text strings.Builder
	more chan struct{}
}

var ansiSequence = regexp.MustCompile(`\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)`)

func newTermReader(r io.Reader) *termReader {
	tr := &termReader{more: make(chan struct{}, 1)}
	go func() {
		buf := make([]byte, 32*1024)
		for {
			n, err := r.Read(buf)
			tr.mu.Lock()
			tr.text.Write(buf[:n])
			tr.mu.Unlock()
			select {
			case tr.more <- struct{}{}:
			default:
			}
			if err != nil {
				close(tr.more)
				return
			}
		}
	}()
	return tr
}

// waitFor waits until the screen output contains want.
func (tr *termReader) waitFor(ctx context.Context, t testing.TB, want string) {
	t.Helper()
	for {
		tr.mu.Lock()
		plain := ansiSequence.ReplaceAllString(tr.text.String(), "")
		tr.mu.Unlock()
		if strings.Contains(plain, want) {
			return
		}
		select {
		case _, ok := <-tr.more:
			if !ok {
				t.Fatalf("the session ended before %q showed; it showed:\n%s", want, tail(plain, 3000))
			}
		case <-ctx.Done():
			t.Fatalf("%q never showed; the screen had:\n%s", want, tail(plain, 3000))
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestSSHServesTheTUILive: an authorized key opens the TUI in a terminal
// over SSH, sees the catch-all and mail arriving there live, follows a
// window change, and the session ends cleanly when the server stops.
func TestSSHServesTheTUILive(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	alice := newUserKey(t, "alice")
	b := startSSHBox(t, ctx, alice.line+"\n")
	c, err := b.dial(alice.signer)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	stdin, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	screen := newTermReader(stdout)
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	screen.waitFor(ctx, t, "catch-all: mail to any address")
	if err := smtpsend.Send(context.Background(), b.smtpAddr, "app@example.org", []string{"anyone@elsewhere.example"},
		[]byte("Subject: Live over SSH 7731\r\n\r\nhello\r\n")); err != nil {
		t.Fatal(err)
	}
	screen.waitFor(ctx, t, "Live over SSH 7731")
	if err := s.WindowChange(40, 160); err != nil {
		t.Fatal(err)
	}
	_, _ = stdin.Write([]byte("?"))
	screen.waitFor(ctx, t, "help")

	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the session did not end cleanly on shutdown: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the session outlived the server's shutdown")
	}
	if err := b.cmd.Wait(); err != nil {
		t.Fatalf("serve did not stop cleanly: %v\n%s", err, b.output())
	}
}

// TestSSHOnAPortInUse: serve stops at start with one line naming the
// address when the SSH port is taken.
func TestSSHOnAPortInUse(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, builtBinary, "serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0",
		"--ssh", taken.Addr().String(), "--home", t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if err == nil || !strings.Contains(stderr.String(), "ssh: listen on "+taken.Addr().String()) ||
		!strings.Contains(stderr.String(), "address already in use") {
		t.Fatalf("serve: %v, stderr %q", err, stderr.String())
	}
}
