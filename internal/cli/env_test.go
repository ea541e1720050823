package cli

import (
	"runtime/debug"
	"testing"
)

// TestHome: sandview's home is $SANDVIEW_HOME, else
// $XDG_CONFIG_HOME/sandview, else ~/.config/sandview.
func TestHome(t *testing.T) {
	env := map[string]string{"SANDVIEW_HOME": "/tmp/sv-home", "XDG_CONFIG_HOME": "/tmp/xdg", "HOME": "/tmp/userhome"}
	e := environment{lookup: func(name string) (string, bool) { v, ok := env[name]; return v, ok }}
	if h, err := e.home(); err != nil || h != "/tmp/sv-home" {
		t.Fatalf("SANDVIEW_HOME: %q %v", h, err)
	}
	env["SANDVIEW_HOME"] = ""
	if h, err := e.home(); err != nil || h != "/tmp/xdg/sandview" {
		t.Fatalf("XDG: %q %v", h, err)
	}
	delete(env, "XDG_CONFIG_HOME")
	if h, err := e.home(); err != nil || h != "/tmp/userhome/.config/sandview" {
		t.Fatalf("fallback: %q %v", h, err)
	}
}

// TestListEnvironment: an SSH session's KEY=VALUE lines, the last of a
// key winning.
func TestListEnvironment(t *testing.T) {
	e := listEnvironment([]string{"TERM=vt100", "NO_COLOR=", "TERM=xterm-256color"})
	if got := e.get("TERM"); got != "xterm-256color" {
		t.Errorf("TERM = %q", got)
	}
	if e.noColor() || e.get("LANG") != "" {
		t.Errorf("NO_COLOR= or an unset LANG read as set")
	}
}

// gcPercent is the collector's current GOGC.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// email list collects garbage less often in a process of its own, until
// it is done; not with the user's GOGC, nor in a server's SSH session.
func TestCollectLessOften(t *testing.T) {
	before := gcPercent()
	restore := collectLessOften(environment{lookup: func(string) (string, bool) { return "", false }, process: true})
	if got := gcPercent(); got != 800 {
		t.Fatalf("GOGC %d during a list, want 800", got)
	}
	restore()
	if got := gcPercent(); got != before {
		t.Fatalf("GOGC %d after a list, want %d again", got, before)
	}
	for name, env := range map[string]environment{
		"the user's GOGC": {lookup: func(string) (string, bool) { return "50", true }, process: true},
		"an SSH session":  listEnvironment(nil),
	} {
		restore := collectLessOften(env)
		if got := gcPercent(); got != before {
			t.Errorf("%s: GOGC %d during a list, want %d", name, got, before)
		}
		restore()
	}
}
