// Package spamdtest starts a real SpamAssassin spamd on a loopback port
// for tests (Debian's spamassassin package; CI installs it).
package spamdtest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"sandview/server/spamd"
)

// startTimeout bounds how long spamd may take to start and score a first
// message (it compiles its rules first; slow on a loaded machine).
const startTimeout = 3 * time.Minute

// Start runs spamd on a free loopback port until the test ends and
// returns its HOST:PORT once it has scored a first message. A missing
// spamd fails the test (CI installs it).
func Start(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("spamd")
	if err != nil {
		if _, statErr := os.Stat("/usr/sbin/spamd"); statErr != nil {
			t.Fatalf("spamd not found (install Debian's spamassassin package): %v", err)
		}
		bin = "/usr/sbin/spamd"
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "--listen", addr, "--pidfile", filepath.Join(dir, "spamd.pid"),
		"--max-children", "1", "--min-children", "1", "--local", "--nouser-config",
		"--helper-home-dir="+dir, "--syslog", filepath.Join(dir, "spamd.log"))
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start spamd: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // spamd and its children
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	msg := []byte("From: a@example.org\r\nTo: b@example.org\r\nSubject: warm up\r\n\r\nhello\r\n")
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		attempt, stop := context.WithTimeout(ctx, time.Minute)
		_, err := spamd.Client{Addr: addr}.Check(attempt, msg)
		stop()
		if err == nil {
			return addr
		}
		select {
		case e := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "spamd.log"))
			t.Fatalf("spamd exited (%v) before answering:\n%s", e, log)
		case <-ctx.Done():
			log, _ := os.ReadFile(filepath.Join(dir, "spamd.log"))
			t.Fatalf("spamd did not answer on %s within %s: %v\n%s", addr, startTimeout, err, log)
		case <-tick.C:
		}
	}
}
