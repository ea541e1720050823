package sshbox

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// account is a test user's key pair.
type account struct {
	signer gossh.Signer
	fp     string
}

func newAccount(t *testing.T) account {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return account{signer: s, fp: gossh.FingerprintSHA256(s.PublicKey())}
}

// entry is the authorized_keys line of a, with options before it.
func (a account) entry(options, comment string) string {
	l := line(a.signer.PublicKey(), comment)
	if options != "" {
		l = options + " " + l
	}
	return l
}

// logBuffer collects the box's log lines, safe for concurrent writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// lines returns the log lines holding every one of parts.
func (l *logBuffer) lines(parts ...string) []string {
	var out []string
	for ln := range strings.SplitSeq(l.String(), "\n") {
		all := ln != ""
		for _, p := range parts {
			all = all && strings.Contains(ln, p)
		}
		if all {
			out = append(out, ln)
		}
	}
	return out
}

// testBox is a running Box with its authorized_keys file and log.
type testBox struct {
	*Box
	keys string
	log  *logBuffer
}

// startBox starts a box on a random loopback port whose authorized_keys
// file holds lines; change adjusts the config (its handlers first).
func startBox(t *testing.T, lines []string, change func(*Config)) *testBox {
	t.Helper()
	dir := t.TempDir()
	tb := &testBox{keys: filepath.Join(dir, "authorized_keys"), log: &logBuffer{}}
	tb.write(t, lines...)
	cfg := Config{
		Addr: "127.0.0.1:0", HostKeyPath: filepath.Join(dir, "host"), AuthorizedKeysPath: tb.keys,
		Logger:      slog.New(slog.NewTextHandler(tb.log, nil)),
		Interactive: func(ctx context.Context, s Session) { <-ctx.Done() },
		Command:     echoCommand,
	}
	if change != nil {
		change(&cfg)
	}
	b, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tb.Box = b
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return tb
}

// echoCommand is the command handler of the tests: "whoami" prints the
// user, "env" the environment, "block" waits for its context to end.
func echoCommand(ctx context.Context, s Session, args []string) int {
	switch args[0] {
	case "whoami":
		fmt.Fprintf(s, "%s %s %s\n", s.User.Name, s.User.Role, s.User.ID)
	case "env":
		fmt.Fprintln(s, strings.Join(s.Environ(), "\n"))
	case "block":
		fmt.Fprintln(s, "started")
		<-ctx.Done()
		return 3
	}
	return 0
}

// write replaces the authorized_keys file (atomically, as an editor or a
// script should).
func (tb *testBox) write(t *testing.T, lines ...string) {
	t.Helper()
	tmp := tb.keys + ".new"
	if err := os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, tb.keys); err != nil {
		t.Fatal(err)
	}
}

// dial connects to the box as a, or fails the test.
func (tb *testBox) dial(t *testing.T, a account) *gossh.Client {
	t.Helper()
	c, err := tb.tryDial(gossh.PublicKeys(a.signer))
	if err != nil {
		t.Fatalf("dial as %s: %v", a.fp, err)
	}
	return c
}

func (tb *testBox) tryDial(auth ...gossh.AuthMethod) (*gossh.Client, error) {
	c, err := gossh.Dial("tcp", tb.Addr(), &gossh.ClientConfig{
		User: "anyone", Auth: auth, HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", tb.Addr(), err)
	}
	return c, nil
}

// run runs cmd in a new session of c and returns its stdout, stderr and
// exit status.
func run(t *testing.T, c *gossh.Client, cmd string) (stdout, stderr string, code int) {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	defer s.Close()
	var out, errOut bytes.Buffer
	s.Stdout, s.Stderr = &out, &errOut
	err = s.Run(cmd)
	var exit *gossh.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitStatus()
	case err != nil:
		t.Fatalf("run %.40q: %v", cmd, err)
	}
	return out.String(), errOut.String(), code
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
