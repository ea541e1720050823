package cli

import "testing"

func TestHyperlinksSupported(t *testing.T) {
	cases := []struct {
		env      map[string]string
		features string
		want     bool
	}{
		{map[string]string{"TERM": "xterm-256color"}, "", false},
		{map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, "", true},
		{map[string]string{"TERM": "xterm-kitty"}, "", true},
		{map[string]string{"TERM": "xterm-256color", "VTE_VERSION": "7600"}, "", true},
		{map[string]string{"TERM": "xterm-256color", "VTE_VERSION": "4205"}, "", false},
		{map[string]string{"TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0", "TERM_PROGRAM": "tmux"}, "256,RGB,title", false},
		{map[string]string{"TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"}, "256,RGB,hyperlinks,title", true},
		{map[string]string{"TERM": "screen.xterm-256color", "VTE_VERSION": "7600"}, "", false},
		{map[string]string{"TERM": "xterm", "SANDVIEW_HYPERLINKS": "1"}, "", true},
		{map[string]string{"TERM": "xterm-kitty", "SANDVIEW_HYPERLINKS": "0"}, "", false},
	}
	for _, c := range cases {
		asked := false
		features := func() string { asked = true; return c.features }
		if got := hyperlinksSupported(func(k string) string { return c.env[k] }, features); got != c.want {
			t.Errorf("%v, tmux features %q: %v, want %v", c.env, c.features, got, c.want)
		}
		if _, inTmux := c.env["TMUX"]; asked != (inTmux && c.env["SANDVIEW_HYPERLINKS"] == "") {
			t.Errorf("%v: tmux asked: %v", c.env, asked)
		}
	}
}
