package ui

import (
	"context"

	"sandview/model"
	"sandview/tui/termimage"
)

// HTMLRenderer renders an email's HTML part to a PNG picture width CSS
// pixels wide, light or dark (the headless browser of internal/cli's
// composition). A note says how the picture was cut (too tall, too
// slow); an error's text is shown as the one line instead (no browser:
// how to get one).
type HTMLRenderer interface {
	RenderHTML(ctx context.Context, m model.Email, width int, dark bool) (png []byte, note string, err error)
}

// HTMLWarmer is an HTMLRenderer that can get ready ahead of its first
// render (start its browser), which the reader asks of it when it opens
// the first mail with an HTML part: the Rendered tab then does not wait
// for the browser to start.
type HTMLWarmer interface {
	Warm()
}

// Graphics is how the terminal draws pictures, as the program learnt it
// from the terminal's answers (termimage.Detector).
type Graphics struct {
	Protocol termimage.Protocol
	// Tmux sends the pictures through tmux's passthrough.
	Tmux bool
	// Cell is the cell size in pixels the terminal reported (zero:
	// unknown, termimage.DefaultCell is assumed).
	Cell termimage.CellSize
	// Known says the terminal answered (DA1): until then no picture is
	// drawn.
	Known bool
	// Why says why there are no pictures when Protocol is None.
	Why string
}
