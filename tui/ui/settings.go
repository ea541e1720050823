package ui

import (
	"context"
	"time"

	"sandview/tui/termimage"
)

// Settings are the TUI's settings. The command line decides them once,
// from its flags and its environment (the process's, or an SSH
// session's), and the root model and the screens share the one value,
// each holding the same pointer; nothing in the TUI reads the environment.
// A zero field means its default.
type Settings struct {
	// ServerLabel names the server in the status bar ("local
	// 127.0.0.1:8025", or the URL).
	ServerLabel string
	// SMTPAddr is where to send mail (host:port), when known: the banner
	// and the empty-inbox hint name the selected inbox and it.
	SMTPAddr string
	// SMTPHint is a fixed hint shown when SMTPAddr is not set.
	SMTPHint string
	// CatchAll is the inbox that takes mail to any address (sandview
	// --local): its hint says so.
	CatchAll string
	// DarkTheme chooses the theme; nil detects it from the terminal's
	// background.
	DarkTheme *bool
	// NoColor draws without colour (NO_COLOR).
	NoColor bool
	// Hyperlinks makes the links of HTML mail OSC 8 hyperlinks, for
	// terminals that support them.
	Hyperlinks bool
	// InTmux says the terminal is inside tmux: copied text goes to tmux's
	// paste buffer too.
	InTmux bool
	// Shell runs the reader's pipe command ("": /bin/sh).
	Shell string
	// UserHome is the user's home directory: ~/ in the paths typed in the
	// file dialogs, and ~/Downloads, offered to save in ("": unknown).
	UserHome string
	// TempDir is the private directory under sandview's home for the
	// decrypted files opened with other programs (desktop.OpenedDir);
	// without it nothing is opened that way.
	TempDir string
	// Open opens a link or a file with another program (nil: the
	// desktop's opener).
	Open func(ctx context.Context, target string) error
	// Run runs tmux and the pipe's shell (nil: os/exec).
	Run Runner
	// Now is the clock (nil: time.Now); tests fix it.
	Now func() time.Time
	// Remote, when set, is the fixed profile of a session whose terminal
	// is on another machine (see Confine): keys that would act on this
	// machine say how to do it on the user's.
	Remote *Remote
	// Terminal is what the environment says about the terminal's
	// pictures (TERM_PROGRAM, LC_TERMINAL…), for choosing a graphics
	// protocol with the terminal's answers.
	Terminal termimage.Hints
	// Renderer renders HTML mail to a picture for the reader's Rendered
	// tab (nil: there is none, the tab says so).
	Renderer HTMLRenderer
}

// Runner runs a program with stdin and returns what it wrote to stdout and
// stderr.
type Runner func(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, error)
