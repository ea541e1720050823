package cli

import "testing"

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
