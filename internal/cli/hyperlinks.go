package cli

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// hyperlinksSupported decides whether HTML mail shows its links as OSC 8
// hyperlinks, which a terminal without support may print as garbage (and
// a multiplexer drops). SANDVIEW_HYPERLINKS=1 or 0 decides when set.
// Otherwise: inside tmux, only when the tmux client has the "hyperlinks"
// terminal feature (tmux 3.4 and later, for terminals declared with it);
// inside GNU screen, never; otherwise for the terminals known to support
// them: iTerm2, WezTerm, VS Code, Ghostty, Hyper, Tabby, Rio, Warp (by
// TERM_PROGRAM), kitty, foot, Alacritty, Contour (by TERM), VTE 0.50 and
// later (GNOME Terminal, Tilix…), Konsole 21.04 and later and Windows
// Terminal. getenv reads the terminal's environment; tmuxFeatures asks
// tmux for its client's features.
func hyperlinksSupported(getenv func(string) string, tmuxFeatures func() string) bool {
	switch strings.ToLower(getenv("SANDVIEW_HYPERLINKS")) {
	case "1", "true", "yes", "on":
		return true
	case "0", "false", "no", "off":
		return false
	}
	term := getenv("TERM")
	switch {
	case getenv("TMUX") != "":
		return strings.Contains(","+tmuxFeatures()+",", ",hyperlinks,")
	case strings.HasPrefix(term, "screen"):
		return false
	}
	switch getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "vscode", "ghostty", "Hyper", "Tabby", "rio", "WarpTerminal":
		return true
	}
	for _, name := range []string{"kitty", "foot", "alacritty", "contour", "wezterm", "ghostty"} {
		if strings.Contains(term, name) {
			return true
		}
	}
	atLeast := func(name string, version int) bool {
		v, err := strconv.Atoi(getenv(name))
		return err == nil && v >= version
	}
	return atLeast("VTE_VERSION", 5000) || atLeast("KONSOLE_VERSION", 210400) || getenv("WT_SESSION") != ""
}

// tmuxClientFeatures asks the tmux server this program runs under for the
// terminal features of its client ("" when it cannot tell).
func tmuxClientFeatures() string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "display-message", "-p", "#{client_termfeatures}").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
