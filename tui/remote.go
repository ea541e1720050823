package tui

import (
	"context"
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// Terminal is a terminal at the other end of a connection (an SSH
// session's): the TUI reads keys from In, draws on Out at the given size
// with the given colour profile, and follows the sizes Resize delivers.
type Terminal struct {
	In            io.Reader
	Out           io.Writer
	Env           []string // the remote environment (TERM, COLORTERM, ...)
	Width, Height int
	Profile       colorprofile.Profile
	Resize        <-chan WindowSize
}

// WindowSize is a terminal's new size.
type WindowSize struct{ Width, Height int }

// The largest remote terminal drawn: a bigger window (a client may claim
// 65535x65535) is drawn at this size, so a session's screen, and the
// memory it takes, stay bounded whatever the client says.
const (
	MaxRemoteWidth  = 500
	MaxRemoteHeight = 200
)

// clamp bounds a remote terminal's size to MaxRemoteWidth x
// MaxRemoteHeight.
func clamp(w, h int) (int, int) {
	return min(max(w, 1), MaxRemoteWidth), min(max(h, 1), MaxRemoteHeight)
}

// RunRemote runs the TUI on a remote terminal until the user quits or ctx
// ends (then the terminal is restored). It never suspends: ctrl+z has no
// shell to return to.
func RunRemote(ctx context.Context, cfg Config, term Terminal) error {
	width, height := clamp(term.Width, term.Height)
	opts := []tea.ProgramOption{
		tea.WithInput(term.In), tea.WithOutput(term.Out), tea.WithEnvironment(term.Env),
		tea.WithWindowSize(width, height), tea.WithoutSignalHandler(),
		tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
			if _, ok := msg.(tea.SuspendMsg); ok {
				return tea.ResumeMsg{}
			}
			return msg
		}),
	}
	if cfg.Settings == nil || !cfg.Settings.NoColor {
		opts = append(opts, tea.WithColorProfile(term.Profile))
	}
	return run(ctx, cfg, func(p *tea.Program) {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case size, ok := <-term.Resize:
					if !ok {
						return
					}
					w, h := clamp(size.Width, size.Height)
					p.Send(tea.WindowSizeMsg{Width: w, Height: h})
				}
			}
		}()
	}, opts...)
}
