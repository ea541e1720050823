package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"sandview/client/smtpsend"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// syncBuffer is a terminal's screen the program writes to while the test
// reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRemoteProgramCopiesWithOSC52: the real program on a remote terminal
// (RunRemote) over the embedded server, confined, sent a window of
// 65535x65535: s in the reader writes the OSC 52 sequence of the scp
// command to the terminal, o in the Links tab that of the link, and no
// line drawn is wider than the clamped window.
func TestRemoteProgramCopiesWithOSC52(t *testing.T) {
	srv, c, inbox := serverWithInbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	body := fmt.Sprintf("From: sender@example.com\r\nTo: %s\r\nSubject: Remote copy\r\n\r\nSee https://example.com/welcome\r\n", inbox.Address())
	if err := smtpsend.Send(context.Background(), srv.SMTPAddr(), "sender@example.com", []string{inbox.Address()}, []byte(body)); err != nil {
		t.Fatal(err)
	}
	dark := true
	set := &Settings{ServerLabel: "test", DarkTheme: &dark}
	set.Confine(&ui.Remote{Fetch: "scp -P 2222 box.example:", Shell: "ssh -p 2222 box.example"})
	in, keys := io.Pipe()
	out := &syncBuffer{}
	resize := make(chan WindowSize, 1)
	resize <- WindowSize{Width: 65535, Height: 65535}
	done := make(chan error, 1)
	go func() {
		done <- RunRemote(ctx, Config{Client: c, Settings: set}, Terminal{In: in, Out: out, Width: 120, Height: 40, Profile: colorprofile.TrueColor, Resize: resize})
	}()
	waitFor := func(what, text string) {
		t.Helper()
		for !strings.Contains(out.String(), text) {
			select {
			case <-ctx.Done():
				t.Fatalf("no %s on the terminal", what)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	osc52 := func(s string) string { return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(s)) }
	waitFor("mail", "Remote copy")
	if _, err := keys.Write([]byte("\t\r")); err != nil {
		t.Fatal(err)
	}
	waitFor("body", "See https://example.com/welcome")
	if _, err := keys.Write([]byte("s")); err != nil {
		t.Fatal(err)
	}
	waitFor("OSC 52 copy of the scp command", "\x1b]52;c;"+base64.StdEncoding.EncodeToString([]byte("scp -P 2222 box.example:" + inbox.Address() + "/"))[:40])
	// The first 3 closes the download dialog.
	if _, err := keys.Write([]byte("33o")); err != nil {
		t.Fatal(err)
	}
	waitFor("OSC 52 copy of the link", osc52("https://example.com/welcome"))
	stopProgram(t, cancel, done)
	// A row drawn ends where the cursor moves to another row: a line feed
	// or carriage return, or a move by CSI (the renderer repaints with
	// moves as often as with line feeds).
	for _, row := range rowMoves.Split(out.String(), -1) {
		if n := len(tuitest.Plain(row)); n > 4*MaxRemoteWidth {
			t.Fatalf("a row of %d bytes was drawn", n)
		}
	}
}

// rowMoves are what moves the cursor to another row: CR, LF, and CSI
// CUP, HVP, CUU, CUD, CNL, CPL and VPA.
var rowMoves = regexp.MustCompile(`\r|\n|\x1b\[[0-9;]*[HfABEFd]`)

// TestRemoteStartsNoReceiver: over SSH the webhooks screen's receiver key
// says it is not available and creates no webhook (it would listen on
// the box).
func TestRemoteStartsNoReceiver(t *testing.T) {
	h := newHarnessSet(t, tuitest.NewFixtureService(), 120, 40, true, func(c *Config) {
		c.Settings.Confine(&ui.Remote{Fetch: "scp -P 2222 box.example:", Shell: "ssh -p 2222 box.example"})
	})
	h.Press("w", "l")
	if !strings.Contains(h.plain(), "over SSH no receiver listens on the box") {
		t.Fatalf("the receiver key does not say it is off:\n%s", h.plain())
	}
	if calls := strings.Join(h.svc.Calls(), "\n"); strings.Contains(calls, "create") {
		t.Fatalf("a webhook was created: %s", calls)
	}
}
