package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"sandview/client/smtpsend"
)

// sshSessions is how many live TUI sessions BenchmarkSSHSessions holds;
// each may add at most maxSSHSessionMB to the server's RSS.
const (
	sshSessions     = 20
	maxSSHSessionMB = 20
)

// BenchmarkSSHSessions: 20 concurrent SSH sessions of the TUI, each with
// the live view of the catch-all and mail in it, on a real `sandview
// serve --ssh` over loopback. It reports the server's resident memory per
// session (RSS with the sessions open minus RSS before, from /proc, no
// forced GC) and times a key press to the frame that answers it in one of
// the sessions (ns/op).
func BenchmarkSSHSessions(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	user := newUserKey(b, "bench")
	box := startSSHBox(b, ctx, user.line+"\n", "--ssh-max-sessions-per-key", strconv.Itoa(sshSessions+1))
	for i := range 50 {
		msg := fmt.Sprintf("Subject: Order #%d confirmed\r\n\r\nthanks\r\n", 10000+i)
		if err := smtpsend.Send(context.Background(), box.smtpAddr, "shop@example.org", []string{"qa@sandbox.test"}, []byte(msg)); err != nil {
			b.Fatal(err)
		}
	}
	before := rssBytes(b, box.cmd.Process.Pid)
	type live struct {
		session *gossh.Session
		stdin   io.Writer
		screen  *termReader
	}
	var sessions []live
	for range sshSessions {
		c, err := box.dial(user.signer)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		s, err := c.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		if err := s.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
			b.Fatal(err)
		}
		stdin, _ := s.StdinPipe()
		stdout, _ := s.StdoutPipe()
		screen := newTermReader(stdout)
		if err := s.Shell(); err != nil {
			b.Fatal(err)
		}
		screen.waitFor(ctx, b, "Order #10049")
		sessions = append(sessions, live{s, stdin, screen})
	}
	perSession := float64(rssBytes(b, box.cmd.Process.Pid)-before) / sshSessions / (1 << 20)

	one := sessions[0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Each j moves the cursor one row, so every press changes the
		// frame; the next frame's bytes answer it.
		one.screen.drain()
		if _, err := one.stdin.Write([]byte("j")); err != nil {
			b.Fatal(err)
		}
		one.screen.next(ctx, b)
		if i%40 == 39 {
			_, _ = one.stdin.Write([]byte("g"))
			one.screen.next(ctx, b)
		}
	}
	b.StopTimer()
	b.ReportMetric(perSession, "MB-RSS/session")
	if perSession > maxSSHSessionMB {
		b.Fatalf("%.1f MB of RSS a session, over the %d MB docs/shared-box.md promises", perSession, maxSSHSessionMB)
	}
}

// drain forgets what the terminal showed so far.
func (tr *termReader) drain() {
	tr.mu.Lock()
	tr.text.Reset()
	tr.mu.Unlock()
	select {
	case <-tr.more:
	default:
	}
}

// next waits for the terminal to show anything new.
func (tr *termReader) next(ctx context.Context, t testing.TB) {
	for {
		tr.mu.Lock()
		n := tr.text.Len()
		tr.mu.Unlock()
		if n > 0 {
			return
		}
		select {
		case _, ok := <-tr.more:
			if !ok {
				t.Fatal("the session ended")
			}
		case <-ctx.Done():
			t.Fatal("no frame came")
		}
	}
}

// rssBytes is a process's resident set size, from /proc.
func rssBytes(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
