package reader

import (
	"fmt"
	"image"

	tea "charm.land/bubbletea/v2"

	"sandview/tui/termimage"
	"sandview/tui/ui"
)

// Picture is the part of the Rendered tab's picture in view and the
// cells it goes in.
type Picture struct {
	Img *image.RGBA
	At  ui.Rect
	// Key names what is drawn: a new key is a new drawing.
	Key string
}

// switchMode switches the tab's render width (or its colour scheme).
func (t *renderedTab) switchMode(width bool) {
	if width {
		t.widthAt++
	} else {
		t.dark = !t.dark
	}
	t.version++
}

// LoadRendered starts the render the Rendered tab shows, when shown;
// on another tab the renderer gets ready for it (the first HTML mail).
func (r *Reader) LoadRendered() tea.Cmd {
	m, found := r.Email()
	if !found {
		return nil
	}
	if r.bar.tab != TabRendered {
		return r.rendered.warm(m)
	}
	return r.rendered.load(r.calls, m)
}

// Picture is the part of the picture in view, relative to the pane: the
// tab's lines under the summary, the tab bar and its rule, inside the
// frame, are its head line(s) and then a blank line per row of cells of
// the picture, which scroll as text does.
func (r *Reader) Picture() (Picture, bool) {
	g := r.ctx.Graphics
	m, found := r.Email()
	if r.bar.tab != TabRendered || !found || !g.Known || g.Protocol == termimage.None || r.finder.find.active() {
		return Picture{}, false
	}
	r.scroll.SetHeight(r.contentHeight())
	r.refresh(m, true)
	inner := r.width - 2
	pic := r.rendered.picture(m, inner)
	if pic == nil {
		return Picture{}, false
	}
	cell := g.Cell.OrDefault()
	head := r.rendered.headLines
	total := termimage.Rows(pic.Bounds().Dy(), cell)
	off := r.scroll.Offset()
	first := max(off-head, 0) // the first row of the picture in view
	skip := max(head-off, 0)  // content lines above it
	rows := min(r.contentHeight()-skip, total-first)
	if rows <= 0 {
		return Picture{}, false
	}
	win := termimage.Window(pic, cell, rows, first)
	top := 1 + len(r.sum.head(m, inner)) + 2 + skip
	at := ui.Rect{X: 1, Y: top, W: min(inner, (pic.Bounds().Dx()+cell.W-1)/cell.W), H: rows}
	return Picture{Img: win, At: at, Key: fmt.Sprint(r.rendered.key(m), pic.Bounds().Size(), first, at, g)}, true
}
