package termimagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"sandview/server/servertest"
)

// Columns and Rows are the xterm's size in cells.
const (
	Columns = 120
	Rows    = 45
)

// Xterm is a real xterm in sixel mode (a VT340 with 1024 colour
// registers that answers window reports, CSI 16 t), Columns x Rows cells, on an
// Xvfb of its own. Its terminal is TTY, the slave side of a
// pseudo-terminal this process opened and handed to xterm (xterm -S): a
// TUI run in this process, or a program started with Run, reads its keys
// from TTY and draws into it.
type Xterm struct {
	Display string
	// Window is xterm's X window id, as xterm wrote it on TTY at start.
	Window string
	TTY    *os.File

	t       testing.TB
	ctx     context.Context
	mu      sync.Mutex
	stopped []string // who of xterm and Run's programs has exited, and why
}

// StartXterm starts the X server and the xterm; both are stopped when the
// test ends, and each wait of the test (Poll) fails at once, with what
// the program said, when xterm or a program started with Run exits.
func StartXterm(t testing.TB, ctx context.Context) *Xterm {
	t.Helper()
	x := &Xterm{Display: XServer(t), t: t, ctx: ctx}
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	// tty stays open until the test binary exits: a TUI's input reader
	// (bubbletea's) may still hold it when the program has returned, with
	// nothing to wait on, so closing it would race with that reader.
	x.TTY = tty
	cmd := exec.Command("xterm", "-display", x.Display, "-ti", "vt340", "-geometry", fmt.Sprintf("%dx%d+0+0", Columns, Rows),
		"-xrm", "XTerm*numColorRegisters: 1024", "-xrm", "XTerm*allowWindowOps: true",
		"-xrm", "XTerm*disallowedWindowOps: 20,21,SetXprop,SetSelection", "-xrm", "XTerm*allowSendEvents: true",
		"-S"+tty.Name()+"/3")
	cmd.ExtraFiles = []*os.File{master}
	x.watch(t, "xterm (apt-get install xterm)", cmd)
	master.Close()
	x.Window = x.readWindowID()
	// xterm sets the terminal's size once its window is up; a program
	// started earlier would see none, and this process, without the
	// terminal as its controlling one, gets no SIGWINCH to tell a TUI.
	x.Poll("xterm's size on its terminal", func() bool {
		w, h, err := term.GetSize(x.TTY.Fd())
		return err == nil && w == Columns && h == Rows
	})
	return x
}

// Run starts a program on the terminal (its standard input and output,
// and its controlling terminal); its standard error is kept for the
// report should it exit. It is killed when the test ends.
func (x *Xterm) Run(name string, args ...string) {
	x.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout = x.TTY, x.TTY
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	x.watch(x.t, name, cmd)
}

// watch starts cmd with its standard error kept, notes its exit for Poll
// and kills it when the test ends.
func (x *Xterm) watch(t testing.TB, what string, cmd *exec.Cmd) {
	t.Helper()
	var stderr servertest.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", what, err)
	}
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		x.mu.Lock()
		x.stopped = append(x.stopped, fmt.Sprintf("%s exited (%v); its standard error: %q", what, err, stderr.String()))
		x.mu.Unlock()
		close(exited)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
}

// readWindowID reads the line xterm writes on its terminal at start: its
// window id in hex.
func (x *Xterm) readWindowID() string {
	x.t.Helper()
	buf := make([]byte, 64)
	n := 0
	x.Poll("xterm's window id on its terminal", func() bool {
		if err := x.TTY.SetReadDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
			x.t.Fatalf("the pseudo-terminal takes no deadline: %v", err)
		}
		m, err := x.TTY.Read(buf[n:])
		n += m
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			x.t.Fatalf("read xterm's window id: %v", err)
		}
		return bytes.IndexByte(buf[:n], '\n') >= 0 || n == len(buf)
	})
	if err := x.TTY.SetReadDeadline(time.Time{}); err != nil {
		x.t.Fatal(err)
	}
	line := strings.TrimSpace(string(buf[:n]))
	id, err := strconv.ParseUint(line, 16, 64)
	if err != nil {
		x.t.Fatalf("xterm's window id %q: %v", line, err)
	}
	return strconv.FormatUint(id, 10)
}

// Poll calls done every 100 ms until it is true. It fails the test when
// the test's context ends first, or xterm or a program started with Run
// exits, saying why.
func (x *Xterm) Poll(what string, done func() bool) {
	x.t.Helper()
	for !done() {
		x.mu.Lock()
		stopped := strings.Join(x.stopped, "; ")
		x.mu.Unlock()
		if stopped != "" {
			x.t.Fatalf("waiting for %s: %s%s", what, stopped, x.keepScreen())
		}
		select {
		case <-x.ctx.Done():
			x.t.Fatalf("waiting for %s: %v%s", what, x.ctx.Err(), x.keepScreen())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Input is the terminal as a plain reader (not a file), in raw mode but
// for its output processing (newline as carriage return and line feed):
// what bubbletea expects of a terminal it is not told is one.
func (x *Xterm) Input() io.Reader {
	x.t.Helper()
	fd := int(x.TTY.Fd())
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		x.t.Fatalf("the terminal's settings: %v", err)
	}
	tio.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	tio.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	tio.Cflag = tio.Cflag&^(unix.CSIZE|unix.PARENB) | unix.CS8
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, tio); err != nil {
		x.t.Fatalf("set the terminal raw: %v", err)
	}
	return struct{ io.Reader }{x.TTY}
}

// keepScreen saves a screenshot in the test's artifact directory (go
// test -artifacts keeps it) and says where.
func (x *Xterm) keepScreen() string {
	m, err := screenshot(x.Display)
	if err != nil {
		return fmt.Sprintf(" (no screenshot: %v)", err)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		return fmt.Sprintf(" (no screenshot: %v)", err)
	}
	name := filepath.Join(x.t.ArtifactDir(), "screen.png")
	if err := os.WriteFile(name, b.Bytes(), 0o600); err != nil {
		return fmt.Sprintf(" (no screenshot: %v)", err)
	}
	return "; the screen: " + name
}

// Keys presses keys (xdotool names) in the xterm's window.
func (x *Xterm) Keys(names ...string) {
	x.t.Helper()
	cmd := exec.Command("xdotool", append([]string{"key", "--window", x.Window}, names...)...)
	cmd.Env = []string{"DISPLAY=" + x.Display}
	if out, err := cmd.CombinedOutput(); err != nil {
		x.t.Fatalf("xdotool %v (apt-get install xdotool): %v %s", names, err, out)
	}
}

// Resize resizes the xterm's window to cols x rows cells, as a user
// dragging its corner would (xdotool windowsize, in the window's cell
// hints), and waits for the terminal to have that size: xterm then has
// told the programs on it (SIGWINCH to the terminal's foreground
// process group).
func (x *Xterm) Resize(cols, rows int) {
	x.t.Helper()
	cmd := exec.Command("xdotool", "windowsize", "--usehints", x.Window, strconv.Itoa(cols), strconv.Itoa(rows))
	cmd.Env = []string{"DISPLAY=" + x.Display}
	if out, err := cmd.CombinedOutput(); err != nil {
		x.t.Fatalf("xdotool windowsize %dx%d: %v %s", cols, rows, err, out)
	}
	x.Poll(fmt.Sprintf("the terminal resized to %dx%d", cols, rows), func() bool {
		w, h, err := term.GetSize(x.TTY.Fd())
		return err == nil && w == cols && h == rows
	})
}

// Screenshot is the X screen (xwd -root).
func (x *Xterm) Screenshot() *image.RGBA {
	x.t.Helper()
	m, err := screenshot(x.Display)
	if err != nil {
		x.t.Fatal(err)
	}
	return m
}
