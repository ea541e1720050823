package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"

	"sandview/client/linkcheck"
	"sandview/internal/htmlrender"
	"sandview/tui"
	"sandview/tui/desktop"
	"sandview/tui/termimage"
)

// environment is the environment a command line runs in: the process's,
// or an SSH session's for the commands and the TUI the SSH transport
// runs. Only the command line reads the environment, through this one
// type, and passes the values down: the SVC_* settings (applyEnv), the
// service (SERVICE_URL, SERVICE_API_KEY, SMTP_HOST, SMTP_PORT), sandview's
// home (SANDVIEW_HOME, XDG_CONFIG_HOME) and the terminal's settings
// (NO_COLOR, SANDVIEW_TRUECOLOR, SANDVIEW_HYPERLINKS, BROWSER, SHELL, TMUX
// and what tells a terminal's features: TERM, TERM_PROGRAM, LC_TERMINAL,
// KITTY_WINDOW_ID), and the renderer's browser (SANDVIEW_BROWSER).
type environment struct {
	lookup func(name string) (string, bool)
	// process: the environment is this process's, which runs one command
	// line (not a session's of a server that runs many).
	process bool
}

// processEnvironment is the environment of this process, given as its
// KEY=VALUE lines (os.Environ).
func processEnvironment(environ []string) environment {
	env := listEnvironment(environ)
	env.process = true
	return env
}

// listEnvironment is an environment given as KEY=VALUE lines (an SSH
// session's); the last line of a key wins.
func listEnvironment(lines []string) environment {
	return environment{lookup: func(name string) (string, bool) {
		for i := len(lines) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(lines[i], name+"="); ok {
				return v, true
			}
		}
		return "", false
	}}
}

// get is the value of name, "" when it is unset.
func (e environment) get(name string) string {
	if e.lookup == nil {
		return ""
	}
	v, _ := e.lookup(name)
	return v
}

// opener opens with $BROWSER, else the desktop's opener.
func (e environment) opener() desktop.Opener { return desktop.Opener{Browser: e.get("BROWSER")} }

// tuiSettings are the TUI's settings this environment, a terminal's,
// decides: no colour, hyperlinks, tmux, the pipe's shell and the opener.
// tmuxFeatures asks the tmux the terminal is in for its client's
// features; nil for a remote terminal (an SSH session's), whose tmux,
// if any, this process cannot reach: then the TUI does not use tmux.
func (e environment) tuiSettings(tmuxFeatures func() string) *tui.Settings {
	inTmux := tmuxFeatures != nil && e.get("TMUX") != ""
	userHome, _ := e.userHome() // unknown: ~ is not expanded
	if tmuxFeatures == nil {
		tmuxFeatures = func() string { return "" }
	}
	return &tui.Settings{
		NoColor:    e.noColor(),
		Hyperlinks: hyperlinksSupported(e.get, tmuxFeatures),
		InTmux:     inTmux,
		Shell:      e.get("SHELL"),
		UserHome:   userHome,
		Open:       e.opener().Open,
		Terminal:   e.terminalHints(),
	}
}

// terminalHints is what the environment says about the terminal's
// pictures; over SSH only LC_TERMINAL (and TERM) come with the session
// (sshbox.AllowedEnv), and the TUI asks the terminal itself.
func (e environment) terminalHints() termimage.Hints {
	return termimage.Hints{
		Term:        e.get("TERM"),
		TermProgram: e.get("TERM_PROGRAM"),
		LCTerminal:  e.get("LC_TERMINAL"),
		KittyWindow: e.get("KITTY_WINDOW_ID") != "",
		Tmux:        e.get("TMUX") != "",
		Ask:         true,
	}
}

// noColor reports NO_COLOR (set to anything but "").
func (e environment) noColor() bool { return e.get("NO_COLOR") != "" }

// home is sandview's home directory: $SANDVIEW_HOME, else
// $XDG_CONFIG_HOME/sandview, else ~/.config/sandview.
func (e environment) home() (string, error) {
	if home := e.get("SANDVIEW_HOME"); home != "" {
		return home, nil
	}
	if xdg := e.get("XDG_CONFIG_HOME"); xdg != "" {
		return filepath.Join(xdg, "sandview"), nil
	}
	userHome, err := e.userHome()
	if err != nil {
		return "", fmt.Errorf("find the home directory (set SANDVIEW_HOME): %w", err)
	}
	return filepath.Join(userHome, ".config", "sandview"), nil
}

// userHome is the user's home directory: $HOME, else the system's idea
// of it (this process's user's).
func (e environment) userHome() (string, error) {
	if home := e.get("HOME"); home != "" {
		return home, nil
	}
	return os.UserHomeDir()
}

// newRenderer is a renderer for this environment: the browser given by
// --browser (flag), else $SANDVIEW_BROWSER, else the first Chromium on
// the PATH; remote content, when a render allows it, fetched under the
// link checker's address rule (public addresses only).
func (e environment) newRenderer(flag string) (*htmlrender.Renderer, func()) {
	path := flag
	if path == "" {
		path = e.get("SANDVIEW_BROWSER")
	}
	if path == "" {
		path = htmlrender.FindBrowser(exec.LookPath)
	}
	fetcher := linkcheck.New(linkcheck.Options{})
	r := htmlrender.New(htmlrender.Config{BrowserPath: path, Fetcher: fetcher, NoSandbox: os.Geteuid() == 0})
	return r, func() {
		_ = r.Close()
		fetcher.Close()
	}
}

// collectLessOften makes the garbage collector of a process that runs
// one command line run less often, until the returned function is
// called: a long list allocates many times what it holds at once
// (records, opened mail, its JSON), and collecting at 800% instead of
// 100% costs some MB and saves about a fifth of the CPU. A GOGC of the
// user's own wins, and a server running the command for an SSH session
// keeps its setting (it is the whole process's).
func collectLessOften(env environment) (restore func()) {
	if !env.process {
		return func() {}
	}
	if _, set := env.lookup("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(800)
	return func() { debug.SetGCPercent(old) }
}
