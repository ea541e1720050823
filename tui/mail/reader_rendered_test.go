package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"testing"

	"sandview/model"
	"sandview/tui/termimage"
	"sandview/tui/ui"
)

// fakeRenderer draws a width x 2*width picture (blue top half, white
// bottom) for each render and records what was asked; err fails them.
type fakeRenderer struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (f *fakeRenderer) RenderHTML(_ context.Context, m model.Email, width int, dark bool) ([]byte, string, error) {
	f.mu.Lock()
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	f.calls = append(f.calls, fmt.Sprintf("%s %d %s", m.ID, width, scheme))
	f.mu.Unlock()
	if f.err != nil {
		return nil, "", f.err
	}
	img := image.NewRGBA(image.Rect(0, 0, width, 2*width))
	for y := range 2 * width {
		for x := range width {
			c := color.RGBA{255, 255, 255, 255}
			if y < width {
				c = color.RGBA{20, 60, 200, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, "", err
	}
	return b.Bytes(), "", nil
}

func TestRenderedTab(t *testing.T) {
	f := &fakeRenderer{}
	h := newHarnessWith(t, 120, 40, ui.Settings{Renderer: f})
	h.ctx.Graphics = ui.Graphics{Protocol: termimage.Sixel, Known: true, Cell: termimage.CellSize{W: 8, H: 16}}
	h.Press("enter", "8")
	id := h.s.panes.shown().id
	if len(f.calls) != 1 || f.calls[0] != id+" 600 light" {
		t.Fatalf("renders %q, want one of %s at 600 px, light", f.calls, id)
	}
	view := h.shown()
	if !strings.Contains(view, "600 px · light · W width · L light/dark") {
		t.Fatalf("no head line over the picture:\n%s", view)
	}
	p, ok := h.s.Picture()
	if !ok {
		t.Fatal("no picture to draw")
	}
	r := h.s.panes.lay.Of(h.s.panes.reader)
	inner := r.W - 2
	// The picture is scaled to the pane (inner cells of 8 px) and drawn
	// inside the frame, under the head line, to the bottom of the pane.
	if p.Img.Bounds().Dx() != min(600, inner*8) || p.At.X != r.X+1 || p.At.Y <= r.Y+1 || p.At.Y+p.At.H > r.Y+r.H-1 || p.At.W > inner {
		t.Fatalf("picture %v at %+v in the reader %+v", p.Img.Bounds(), p.At, r)
	}
	if c := p.Img.RGBAAt(p.Img.Bounds().Min.X+5, p.Img.Bounds().Min.Y+5); c.B != 200 {
		t.Fatalf("the top of the picture is %v, want the render's blue", c)
	}
	// Scrolling moves the picture up under its head line and then cuts its top.
	for range 5 {
		h.Press("down")
	}
	q, ok := h.s.Picture()
	if !ok || q.Key == p.Key || q.Img.Bounds().Min.Y == 0 || q.At.Y >= p.At.Y {
		t.Fatalf("after scrolling: %v at %+v (was %v at %+v)", q.Img.Bounds(), q.At, p.Img.Bounds(), p.At)
	}
	// W and L switch the width and the scheme, one key each, a render each.
	h.Press("W")
	h.Press("L")
	if want := []string{id + " 600 light", id + " 1024 light", id + " 1024 dark"}; strings.Join(f.calls, ",") != strings.Join(want, ",") {
		t.Fatalf("renders %q, want %q", f.calls, want)
	}
	if view := h.shown(); !strings.Contains(view, "1024 px · dark") {
		t.Fatalf("the head line does not follow:\n%s", view)
	}
	// Kept: back to a render done before, nothing is rendered again.
	h.Press("L")
	if len(f.calls) != 3 {
		t.Fatalf("a kept render was rendered again: %q", f.calls)
	}
	// Another tab: no picture.
	h.Press("1")
	if _, ok := h.s.Picture(); ok {
		t.Fatal("the Body tab has a picture")
	}
}

func TestRenderedTabWithoutPicture(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  ui.Settings
		g    ui.Graphics
		want string
	}{
		{"no graphics", ui.Settings{Renderer: &fakeRenderer{}}, ui.Graphics{Known: true, Why: termimage.Hints{Ask: true}.Why()}, "no picture: this terminal answered no graphics protocol"},
		{"no renderer", ui.Settings{}, ui.Graphics{Known: true, Protocol: termimage.Kitty}, "no HTML renderer"},
		{"no browser", ui.Settings{Renderer: &fakeRenderer{err: errors.New("no Chromium found: install chromium or give --browser PATH")}}, ui.Graphics{Known: true, Protocol: termimage.Kitty}, "no Chromium found: install chromium"},
		{"terminal not answered yet", ui.Settings{Renderer: &fakeRenderer{}}, ui.Graphics{}, "asking the terminal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessWith(t, 120, 40, tc.set)
			h.ctx.Graphics = tc.g
			h.Press("enter", "8")
			view := h.shown()
			// The one line why, then the HTML part as text.
			if !strings.Contains(view, tc.want) || !strings.Contains(view, "Hello HTML world") {
				t.Fatalf("want %q and the text render:\n%s", tc.want, view)
			}
			if _, ok := h.s.Picture(); ok {
				t.Fatal("a picture without a way to draw it")
			}
		})
	}
}

// warmRenderer is a fakeRenderer that can get ready ahead.
type warmRenderer struct {
	fakeRenderer
	warms int
}

func (w *warmRenderer) Warm() {
	w.mu.Lock()
	w.warms++
	w.mu.Unlock()
}

// TestRenderedTabWarm: opening the first mail with an HTML part (on the
// Body tab) has the renderer get ready for its render, once; nothing is
// rendered until the Rendered tab is shown.
func TestRenderedTabWarm(t *testing.T) {
	w := &warmRenderer{}
	h := newHarnessWith(t, 120, 40, ui.Settings{Renderer: w})
	h.Press("enter")
	w.mu.Lock()
	warms, calls := w.warms, len(w.calls)
	w.mu.Unlock()
	if warms != 1 || calls != 0 {
		t.Fatalf("after opening an HTML mail: %d warms, %d renders; want 1 and 0", warms, calls)
	}
	h.Press("down", "up", "8")
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.warms != 1 || len(w.calls) != 1 {
		t.Fatalf("after more mail and the Rendered tab: %d warms, renders %q; want 1 and one render", w.warms, w.calls)
	}
}
