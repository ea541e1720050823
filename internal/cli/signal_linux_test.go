package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the controller end for the test and
// the path of the terminal end for the program. The controller stays
// non-blocking (its ioctls go through SyscallConn, not Fd, which would
// make it blocking): closing a blocking file that a goroutine is reading
// waits for that read to return, so the terminal would not close, nor
// the kernel send its hangup, until the program next wrote something.
func openPTY(t *testing.T) (controller *os.File, terminal string) {
	t.Helper()
	controller, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { controller.Close() })
	raw, err := controller.SyscallConn()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	var n int
	ctlErr := raw.Control(func(fd uintptr) {
		if err = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); err != nil {
			err = fmt.Errorf("unlock the pseudo-terminal: %w", err)
			return
		}
		if n, err = unix.IoctlGetInt(int(fd), unix.TIOCGPTN); err != nil {
			err = fmt.Errorf("name the pseudo-terminal: %w", err)
			return
		}
		if err = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 100}); err != nil {
			err = fmt.Errorf("size the pseudo-terminal: %w", err)
		}
	})
	if err = errors.Join(ctlErr, err); err != nil {
		t.Fatal(err)
	}
	return controller, "/dev/pts/" + strconv.Itoa(n)
}

// TestLocalStateGoesOnSignals: `sandview --local`, running its TUI in a
// terminal, removes its state file when SIGTERM or SIGINT stops it, or
// its terminal closes (the kernel's SIGHUP to the session's process, as
// when a window or an SSH connection closes).
func TestLocalStateGoesOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			home := t.TempDir()
			controller, terminalPath := openPTY(t)
			terminal, err := os.OpenFile(terminalPath, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(builtBinary, "--local", "--home", home, "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0")
			cmd.Env = append(os.Environ(), "SANDVIEW_HOME="+home, "TERM=xterm-256color")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = terminal, terminal, terminal
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			terminal.Close()
			screen := &lockedBuffer{}
			go func() { _, _ = io.Copy(screen, controller) }()
			exited := make(chan struct{})
			var waitErr error
			go func() { waitErr = cmd.Wait(); close(exited) }()
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-exited
			})

			deadline := time.Now().Add(30 * time.Second)
			for {
				st, found, err := readLocalState(home)
				if err == nil && found && st.URL != "" && st.PID == cmd.Process.Pid {
					break
				}
				select {
				case <-exited:
					t.Fatalf("sandview --local ended before it recorded its server: %v", waitErr)
				default:
				}
				if time.Now().After(deadline) {
					t.Fatal("sandview --local recorded no server within 30 s")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if sig == syscall.SIGHUP {
				controller.Close() // the terminal closes: the kernel sends the hangup
			} else if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Signal(syscall.SIGQUIT) // its goroutines, for the failure message
				<-exited
				t.Fatalf("sandview --local did not stop on %v; its terminal ends with:\n%s", sig, screen.tail(20000))
			}
			if _, err := os.Stat(localStatePath(home)); !os.IsNotExist(err) {
				t.Fatalf("the state file is still there after %v: %v (exit: %v); its terminal ends with:\n%q", sig, err, waitErr, screen.tail(3000))
			}
		})
	}
}

// lockedBuffer collects a program's terminal output.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// tail is the last n bytes written.
func (b *lockedBuffer) tail(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf[max(0, len(b.buf)-n):])
}
