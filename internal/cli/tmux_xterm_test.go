package cli

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/server/servertest"
	"sandview/tui/termimage/termimagetest"
)

// TestTmuxXtermSixel: through tmux the picture reaches the terminal. A
// real xterm in sixel mode under Xvfb runs tmux (a server of its own on
// a private socket, no configuration but allow-passthrough on), whose
// pane runs `email render --format sixel`: inside tmux (TMUX set) the
// sixel image goes out wrapped in tmux's passthrough, tmux hands it to
// xterm, and the screenshot holds the render's red band over its green
// one at the render's size (cut at 400 px, which fits the window). (Debian 12's tmux 3.3a is built without
// sixel: it draws no sixel itself, and answers DA1 for itself without
// it, so only a caller that knows the outer terminal, as --format does,
// sends sixel through it.)
func TestTmuxXtermSixel(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	h.sendRaw(address, []byte(strings.Replace(twoBands, "someone@elsewhere.example", address, 1)))
	id := h.emailBySubject(address, "Two bands").ID
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	x := termimagetest.StartXterm(t, ctx)
	socket := filepath.Join(t.TempDir(), "tmux")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", socket, "kill-server").Run() })
	// The note on standard error ("the picture is cut") stays out of the
	// pane: tmux, which does not see the picture it passes through, would
	// draw that line wherever its own cursor is, over the picture's first
	// row when the note's redraw comes after the picture (seen once in a
	// full run under load).
	render := fmt.Sprintf("%s --home %s --url %s --api-key %s email render %s --inbox %s --format sixel --width 375 --height 400 2>/dev/null; exec cat",
		builtBinary, h.home, h.serverURL(), servertest.APIKey, id, address)
	x.Run("tmux", "-S", socket, "-f", "/dev/null", "start-server", ";", "set", "-g", "allow-passthrough", "on", ";",
		"set", "-g", "status", "off", ";", "new-session", render)
	red := func(r, g, b uint8) bool { return r > 150 && g < 90 && b < 90 }
	green := func(r, g, b uint8) bool { return r < 90 && g > 120 && b < 100 }
	x.Poll("the sixel picture through tmux on the screen", func() bool {
		return !termimagetest.SolidBox(x.Screenshot(), green).Empty()
	})
	shot := x.Screenshot()
	r, g := termimagetest.SolidBox(shot, red), termimagetest.SolidBox(shot, green)
	switch {
	case r.Dx() < 371 || r.Dx() > 379 || g.Dx() != r.Dx():
		t.Fatalf("bands red %v, green %v: want 375 px wide, the render's width", r, g)
	case r.Dy() < 296 || r.Dy() > 304 || g.Dy() < 96 || g.Dy() > 104 || g.Min.Y < r.Max.Y-2 || g.Min.Y > r.Max.Y+2:
		t.Fatalf("bands red %v, green %v: want the red band's 300 px right over the green one's first 100 (--height 400)", r, g)
	}
}
