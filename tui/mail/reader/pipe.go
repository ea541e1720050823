package reader

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// The pipe: the raw message goes to a shell command the user types, run
// with the user's shell -c (Settings.Shell, $SHELL; sh when unset), and
// what it writes to stdout and stderr is shown, sanitized, in a dialog
// that scrolls.
const (
	pipeTimeout = 30 * time.Second
	// PipeOutputLimit bounds what a command's output is kept of.
	PipeOutputLimit = 1 << 20
)

// pipeDoneMsg reports a command the message was piped to: its output (at
// most PipeOutputLimit bytes, truncated says whether there was more) and
// how it ended; fetchErr says the raw message could not be fetched.
type pipeDoneMsg struct {
	command   string
	output    []byte
	truncated bool
	err       error
	fetchErr  error
}

// piper is the reader's pipe: it asks for the command, runs it over the
// message's source through the host and shows what it wrote.
type piper struct {
	ctx   *ui.Context
	host  Host
	calls context.Context // cancels the fetch and the command
	set   *ui.Settings
	// last is the command the message was last piped to.
	last string
}

// prompt asks for the command to pipe the open message (of inbox
// address) to.
func (r *piper) prompt(address string, open model.Email) tea.Cmd {
	if remote := r.set.Remote; remote != nil {
		// Over SSH: download the source and pipe it on the user's machine.
		return remote.RunThere(r.ctx, "download it and pipe it", remote.FetchEmail(address, open.ID))
	}
	id := open.ID
	hint := fmt.Sprintf("The raw message (RFC 5322) is the input of this command, run with $SHELL -c; its output (the first %d KiB, within %s) is shown.", PipeOutputLimit>>10, pipeTimeout)
	r.ctx.Open(ui.NewPrompt(r.ctx, "Pipe the message to a command", hint, r.last, func(command string) tea.Cmd {
		r.last = command
		return r.run(address, id, command)
	}))
	return nil
}

// run fetches the raw message and runs command with it as input.
func (r *piper) run(address, id, command string) tea.Cmd {
	host, calls, shell := r.host, r.calls, r.set.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	return func() tea.Msg {
		raw, err := host.Raw(calls, address, id)
		if err != nil {
			return pipeDoneMsg{command: command, fetchErr: fmt.Errorf("fetch the raw message: %w", err)}
		}
		ctx, cancel := context.WithTimeout(calls, pipeTimeout)
		defer cancel()
		out, err := host.Run(ctx, raw, shell, "-c", command)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("stopped after %s", pipeTimeout)
		}
		msg := pipeDoneMsg{command: command, output: out, err: err}
		if len(out) > PipeOutputLimit {
			msg.output, msg.truncated = out[:PipeOutputLimit], true
		}
		return msg
	}
}

// done shows what a command the message was piped to wrote; a failure
// to fetch the message goes back to the prompt.
func (r *piper) done(msg pipeDoneMsg) {
	p, isPrompt := r.ctx.Dialog().(*ui.Prompt)
	if msg.fetchErr != nil {
		if isPrompt {
			p.Failed(msg.fetchErr)
		} else {
			r.ctx.Flash(ui.ErrorText(msg.fetchErr), ui.LevelError)
		}
		return
	}
	if isPrompt {
		r.ctx.Close(p)
	}
	text := termtext.Sanitize(strings.ToValidUTF8(string(msg.output), "\uFFFD"))
	var notes []string
	if strings.TrimSpace(text) == "" {
		notes = append(notes, "(no output)")
	}
	if msg.truncated {
		notes = append(notes, fmt.Sprintf("(output cut at %d KiB)", PipeOutputLimit>>10))
	}
	end := "exit 0"
	level := ui.LevelSuccess
	if msg.err != nil {
		end, level = termtext.SanitizeLine(msg.err.Error()), ui.LevelWarn
	}
	title := termtext.SanitizeLine("| "+msg.command) + " — " + end
	r.ctx.Log(title, level)
	body := strings.TrimRight(text, "\n")
	if len(notes) > 0 {
		body += "\n" + strings.Join(notes, " ")
	}
	r.ctx.Open(ui.NewTextDialog(r.ctx, title, ui.WrapLines(body)))
}
