package reader

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/termimage"
	"sandview/tui/ui"
)

// renderWidth is the width (CSS pixels) of render width choice i: a
// phone, the usual mail column, a desktop.
func renderWidth(i int) int {
	switch i % 3 {
	case 0:
		return 600
	case 1:
		return 1024
	}
	return 375
}

// renderKey is one render of one email: its inbox and id, the width and
// the colour scheme.
type renderKey struct {
	address, id string
	width       int
	dark        bool
}

// rendered is a render's result: the picture, or why there is none.
type rendered struct {
	img  image.Image
	note string // how the render was cut
	err  string // why there is no picture
}

// renderedMsg hands a finished render to the program.
type renderedMsg struct {
	key renderKey
	rendered
}

// maxRenders is how many renders the tab keeps (this program's, so one
// user's: an SSH session is a program of its own).
const maxRenders = 6

// renderedTab shows the HTML part as a browser draws it: a picture drawn
// over blank lines with the terminal's graphics protocol (the program
// root paints it, see Screen.Picture), else the text and a line saying
// why there is no picture.
type renderedTab struct {
	ctx      *ui.Context
	body     *bodyTab // its HTML as text, without a picture
	renderer ui.HTMLRenderer
	widthAt  int  // the render width choice (renderWidth)
	dark     bool // render with prefers-color-scheme: dark
	address  string
	cache    map[renderKey]*rendered
	pending  renderKey // the render running
	cancel   context.CancelFunc
	// version counts the changes of what the tab shows.
	version int
	// headLines are the lines over the picture in the tab's content.
	headLines int
	// scaled is the picture of a key scaled to the pane.
	scaled    *image.RGBA
	scaledFor [2]any
	warmed    bool // the renderer was asked to get ready
}

func (t *renderedTab) label(_ model.Email, short bool) string { return shortName("Rendered", short) }

// key is the render the tab shows for m.
func (t *renderedTab) key(m model.Email) renderKey {
	return renderKey{address: t.address, id: m.ID, width: renderWidth(t.widthAt), dark: t.dark}
}

// picture is the scaled picture of m for a pane cols cells wide, or nil.
func (t *renderedTab) picture(m model.Email, cols int) *image.RGBA {
	k := t.key(m)
	r := t.cache[k]
	if r == nil || r.img == nil {
		return nil
	}
	cell := t.ctx.Graphics.Cell.OrDefault()
	px := min(r.img.Bounds().Dx(), cols*cell.W)
	if t.scaledFor != [2]any{k, px} {
		t.scaled, t.scaledFor = termimage.Scale(r.img, px), [2]any{k, px}
	}
	return t.scaled
}

func (t *renderedTab) lines(m model.Email, width, _ int) tabContent {
	st := t.ctx.Styles()
	g := t.ctx.Graphics
	k := t.key(m)
	scheme := "light"
	if k.dark {
		scheme = "dark"
	}
	keys := fmt.Sprintf("%s width · %s light/dark", ui.KeyName(t.ctx.Keys.RenderWidth), ui.KeyName(t.ctx.Keys.RenderDark))
	head := fmt.Sprintf("%d px · %s · %s", k.width, scheme, keys)
	why := ""
	r := t.cache[k]
	switch {
	case m.HTML == "":
		return textContent([]string{st.Muted.Render("This email has no HTML part.")})
	case t.renderer == nil:
		why = "no HTML renderer in this program"
	case g.Known && g.Protocol == termimage.None:
		why = "no picture: " + g.Why
	case r == nil || (r.img == nil && r.err == ""):
		return textContent(ui.WrapStyled(st.Muted.Render, fmt.Sprintf("Rendering at %d px, %s…", k.width, scheme), width))
	case r.err != "":
		why = r.err
	case !g.Known:
		why = "asking the terminal how it draws pictures…"
	}
	if why != "" {
		text := ui.Wrap(t.body.htmlPage(m).Render(width).Text, width)
		return textContent(ui.WrapStyled(st.RenderNote.Render, why, width), []string{""}, text)
	}
	pic := t.picture(m, width)
	if r.note != "" {
		head += " · " + r.note
	}
	lines := ui.WrapStyled(st.RenderNote.Render, head, width)
	t.headLines = len(lines)
	for range termimage.Rows(pic.Bounds().Dy(), g.Cell) {
		lines = append(lines, "")
	}
	return tabContent{lines: lines}
}

// load starts the render the tab shows for m unless it is kept or
// running; a render of another email is cancelled.
func (t *renderedTab) load(parent context.Context, m model.Email) tea.Cmd {
	if t.renderer == nil || m.HTML == "" || !m.HasContent {
		return nil
	}
	k := t.key(m)
	if _, ok := t.cache[k]; ok {
		return nil
	}
	if t.cancel != nil {
		t.cancel()
	}
	if len(t.cache) >= maxRenders {
		clear(t.cache)
	}
	if t.cache == nil {
		t.cache = map[renderKey]*rendered{}
	}
	t.cache[k] = &rendered{}
	ctx, cancel := context.WithCancel(parent)
	t.pending, t.cancel = k, cancel
	renderer := t.renderer
	return func() tea.Msg {
		defer cancel()
		data, note, err := renderer.RenderHTML(ctx, m, k.width, k.dark)
		if err != nil {
			return renderedMsg{key: k, rendered: rendered{err: ui.ErrorText(err)}}
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return renderedMsg{key: k, rendered: rendered{err: "the render is not a PNG picture: " + err.Error()}}
		}
		return renderedMsg{key: k, rendered: rendered{img: img, note: note}}
	}
}

// warm asks the renderer, when it can get ready ahead (ui.HTMLWarmer),
// to do so once the first mail with an HTML part is shown: its picture
// is likely asked for next.
func (t *renderedTab) warm(m model.Email) tea.Cmd {
	w, ok := t.renderer.(ui.HTMLWarmer)
	if !ok || t.warmed || m.HTML == "" {
		return nil
	}
	t.warmed = true
	return func() tea.Msg {
		w.Warm()
		return nil
	}
}

// done keeps a finished render when it is the one asked for last; a
// stale one (another email, width or scheme since) is dropped. Either
// way the tab's version moves on, so the reader lays it out again.
func (t *renderedTab) done(msg renderedMsg) {
	t.version++
	if msg.key != t.pending || t.cache[msg.key] == nil {
		delete(t.cache, msg.key)
		return
	}
	r := msg.rendered
	t.cache[msg.key] = &r
	t.cancel = nil
}
