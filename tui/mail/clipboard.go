package mail

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/tui/mail/reader"
	"sandview/tui/ui"
)

// tmuxTimeout bounds `tmux load-buffer`.
const tmuxTimeout = 5 * time.Second

// execRunner runs a program with os/exec, keeping at most one byte more
// than reader.PipeOutputLimit of its output (the rest is read and dropped, so the
// program is not held up); once ctx ends the program is killed and its
// output given up on a little later.
func execRunner(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	out := &cappedBuffer{limit: reader.PipeOutputLimit + 1}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	return out.buf.Bytes(), err
}

// cappedBuffer keeps the first limit bytes written to it.
type cappedBuffer struct {
	buf   bytes.Buffer
	limit int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// copyText puts text on the terminal's clipboard with OSC 52 and, inside
// tmux (Settings.InTmux), in tmux's paste buffer too (`load-buffer -w` also
// hands it on to the outer terminal when tmux is allowed to): under tmux's
// default set-clipboard external, OSC 52 from a program reaches no
// clipboard. The status names where the text went; what is the text as
// the status shows it.
func (c commands) copyText(text, what string) tea.Cmd {
	osc := tea.SetClipboard(text)
	if !c.set.InTmux {
		return tea.Batch(osc, ui.StatusCmd("copied "+what+" to the terminal's clipboard (OSC 52)", ui.LevelSuccess))
	}
	return tea.Batch(osc, func() tea.Msg {
		ctx, cancel := context.WithTimeout(c.ctx, tmuxTimeout)
		defer cancel()
		out, err := c.run(ctx, []byte(text), "tmux", "load-buffer", "-w", "-")
		if err != nil {
			return ui.StatusMsg{Text: fmt.Sprintf("copied %s by OSC 52 only: tmux load-buffer failed: %v %s", what, err, bytes.TrimSpace(out)), Level: ui.LevelWarn}
		}
		return ui.StatusMsg{Text: "copied " + what + " to the tmux buffer and the terminal's clipboard (OSC 52)", Level: ui.LevelSuccess}
	})
}
