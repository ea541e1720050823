package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"sandview/tui"
	"sandview/tui/tuitest"
)

// TestLocalShowsSMTPRefusals runs `sandview --local` (its TUI headless):
// the size limit comes from SVC_MAX_MESSAGE_BYTES as for `serve`, a 15 MB
// mail is refused with 552, and the refusal shows in the TUI's status bar.
func TestLocalShowsSMTPRefusals(t *testing.T) {
	const limit = 12_000_000
	t.Setenv("SVC_MAX_MESSAGE_BYTES", fmt.Sprint(limit))
	home := t.TempDir()
	root := &cobra.Command{}
	l := &localOptions{}
	l.register(root)
	for name, value := range map[string]string{"http": "127.0.0.1:0", "smtp": "127.0.0.1:0"} {
		if err := root.Flags().Set(name, value); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var last atomic.Value
	last.Store("")
	shown := make(chan struct{}, 1)
	const want = "SMTP 552 refused mail from big@example.org"
	watch := func(m tea.Model, msg tea.Msg) tea.Msg {
		view := tuitest.Plain(m.(tui.App).View().Content)
		last.Store(view)
		if strings.Contains(view, want) {
			select {
			case shown <- struct{}{}:
			default:
			}
		}
		return msg
	}
	d := display{opts: []tea.ProgramOption{tea.WithoutSignalHandler(), tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(200, 40), tea.WithFilter(watch)}}
	done := make(chan error, 1)
	go func() {
		done <- runLocal(ctx, &globalOptions{home: home, local: true, env: processEnvironment(os.Environ())}, l, d)
	}()

	var st localState
	for st.SMTP == "" {
		select {
		case err := <-done:
			t.Fatalf("--local ended early: %v", err)
		case <-ctx.Done():
			t.Fatal("the local server never recorded its addresses")
		case <-time.After(20 * time.Millisecond): // polling the state file
		}
		st, _, _ = readLocalState(home)
	}
	big := append([]byte("From: big@example.org\r\nTo: "+st.CatchAll+"\r\nSubject: big\r\n\r\n"), bytes.Repeat([]byte(strings.Repeat("x", 98)+"\r\n"), 15_000_000/100)...)
	_, err := sendSTARTTLS(st.SMTP, "127.0.0.1", st.TLSCert, nil, "big@example.org", []string{st.CatchAll}, big)
	if err == nil || !strings.Contains(err.Error(), "552") || !strings.Contains(err.Error(), fmt.Sprint(limit)) {
		t.Fatalf("a 15 MB mail: %v, want 552 naming the limit %d of SVC_MAX_MESSAGE_BYTES", err, limit)
	}
	select {
	case <-shown:
	case err := <-done:
		t.Fatalf("--local ended early: %v", err)
	case <-ctx.Done():
		t.Fatalf("the TUI never showed %q:\n%s", want, last.Load())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("--local: %v", err)
	}
}
