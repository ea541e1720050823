package cli

import (
	"context"

	"sandview/internal/htmlrender"
	"sandview/model"
	"sandview/tui/ui"
)

// tuiMaxHeight cuts the TUI's renders (px): a picture to scroll through,
// not an archive (email render --full draws all of it).
const tuiMaxHeight = 8000

// tuiRenderer renders for the reader's Rendered tab with a renderer of
// internal/htmlrender: the process's own, or the box's browser shared by
// the SSH sessions (each session keeps its own renders).
type tuiRenderer struct{ r *htmlrender.Renderer }

// RenderHTML renders the HTML part of m, remote content blocked.
func (t tuiRenderer) RenderHTML(ctx context.Context, m model.Email, width int, dark bool) ([]byte, string, error) {
	res, err := t.r.Render(ctx, htmlrender.InputOf(m), htmlrender.Options{Width: width, Dark: dark, MaxHeight: tuiMaxHeight})
	if err != nil {
		return nil, "", err
	}
	return res.PNG, res.Cut, nil
}

// Warm starts the browser ahead of the first render (ui.HTMLWarmer); a
// failure shows when the render is asked for.
func (t tuiRenderer) Warm() { _ = t.r.Warm() }

// withRenderer gives the TUI's settings the renderer r (none when nil).
func withRenderer(set *ui.Settings, r *htmlrender.Renderer) {
	if r != nil {
		set.Renderer = tuiRenderer{r}
	}
}
