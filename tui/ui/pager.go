package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
)

// pager is the body of a dialog that shows lines which may be taller
// than the screen: the movement keys scroll them, any other key closes
// the dialog. The lines are laid out for the inner width once per width.
type pager struct {
	ctx    *Context
	keys   keys.ListKeyMap
	title  string
	layout func(width int) []string
	maxW   int // the widest the box gets

	laidW  int // width the lines were laid out for (0: not yet)
	lines  []string
	scroll Scroller
}

func newPager(ctx *Context, title string, maxW int, layout func(width int) []string) pager {
	return pager{ctx: ctx, keys: ctx.Keys.ListKeyMap, title: title, maxW: maxW, layout: layout}
}

// handleKey scrolls for the movement keys; done is true for any other key.
func (p *pager) handleKey(msg tea.KeyPressMsg) (done bool) {
	k, s := p.keys, &p.scroll
	page := max(s.Height()-1, 1)
	switch {
	case key.Matches(msg, k.Up):
		s.ScrollBy(-1)
	case key.Matches(msg, k.Down):
		s.ScrollBy(1)
	case key.Matches(msg, k.PageUp):
		s.ScrollBy(-page)
	case key.Matches(msg, k.PageDown):
		s.ScrollBy(page)
	case key.Matches(msg, k.HalfPageUp):
		s.ScrollBy(-max(s.Height()/2, 1))
	case key.Matches(msg, k.HalfPageDown):
		s.ScrollBy(max(s.Height()/2, 1))
	case key.Matches(msg, k.Top):
		s.ScrollTo(0)
	case key.Matches(msg, k.Bottom):
		s.ScrollTo(s.Len())
	default:
		return true
	}
	return false
}

// view draws the box at most width x height cells: the title, the lines
// in view and a hint that says how to scroll when they do not all fit.
func (p *pager) view(width, height int) string {
	width = max(min(width, p.maxW), 12)
	inner := width - 4
	if inner != p.laidW {
		p.laidW, p.lines = inner, p.layout(inner)
		p.scroll.SetLines(p.lines)
	}
	st := p.ctx.Styles()
	p.scroll.SetHeight(max(height-6, 1)) // border, title, blank, blank, hint
	hint := "Press any key to close."
	if pct := p.scroll.Percent(); pct >= 0 {
		hint = fmt.Sprintf("%d%% · ↑/↓ %s/%s scroll · any other key closes", pct, KeyName(p.keys.PageUp), KeyName(p.keys.PageDown))
	}
	out := []string{st.DialogTitle.Render(p.title), ""}
	if p.scroll.Percent() < 0 {
		out = append(out, p.lines...)
	} else {
		out = append(out, p.scroll.Visible()...)
	}
	out = append(out, "", st.Muted.Render(hint))
	return Box(p.ctx, out, width)
}

// TextDialog shows lines of text (a log, a command's output) in a box
// that scrolls when they are taller than the screen.
type TextDialog struct{ pager }

// NewTextDialog returns a dialog titled title over lines laid out by
// layout for a width.
func NewTextDialog(ctx *Context, title string, layout func(width int) []string) *TextDialog {
	return &TextDialog{newPager(ctx, title, 110, layout)}
}

// HandleKey scrolls, or closes on any other key.
func (d *TextDialog) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) { return nil, d.handleKey(msg) }

// Paste does nothing.
func (d *TextDialog) Paste(string) {}

// View draws the dialog.
func (d *TextDialog) View(width, height int) string { return d.view(width, height) }

// ShortHelp lists the scroll keys.
func (d *TextDialog) ShortHelp() []key.Binding {
	return []key.Binding{d.keys.Down, d.keys.Up, d.keys.PageDown, d.keys.PageUp}
}

// FullHelp lists the scroll keys.
func (d *TextDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// WrapLines wraps each line of text to width (a layout for TextDialog).
func WrapLines(text string) func(width int) []string {
	return func(width int) []string { return Wrap(strings.TrimRight(text, "\n"), width) }
}
