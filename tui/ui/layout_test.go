package ui_test

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/tui/ui"
)

// block is a pane that draws its letter in every cell of its size.
type block struct {
	letter        string
	width, height int
}

func (b *block) SetSize(width, height int)                 { b.width, b.height = width, height }
func (b *block) SetFocus(bool)                             {}
func (b *block) HandleKey(tea.KeyPressMsg) (tea.Cmd, bool) { return nil, false }
func (b *block) ShortHelp() []key.Binding                  { return nil }
func (b *block) FullHelp() [][]key.Binding                 { return nil }
func (b *block) View() string {
	line := strings.Repeat(b.letter, b.width)
	lines := make([]string, b.height)
	for i := range lines {
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

// TestLayoutDrawsEachPaneInItsRectangle: a pane beside two stacked ones
// is drawn row by row, each pane in its rectangle; a hidden pane is sized
// to the whole body and not drawn; At and Of find the panes.
func TestLayoutDrawsEachPaneInItsRectangle(t *testing.T) {
	a, b, c, hidden := &block{letter: "a"}, &block{letter: "b"}, &block{letter: "c"}, &block{letter: "h"}
	l := ui.Layout{Mode: ui.Wide, Panes: []ui.Placed{
		{Pane: b, At: ui.Rect{X: 2, Y: 0, W: 3, H: 1}},
		{Pane: a, At: ui.Rect{X: 0, Y: 0, W: 2, H: 3}},
		{Pane: hidden},
		{Pane: c, At: ui.Rect{X: 2, Y: 1, W: 3, H: 2}},
	}}
	l.Resize(5, 3)
	if hidden.width != 5 || hidden.height != 3 || b.width != 3 || b.height != 1 {
		t.Fatalf("sizes: hidden %dx%d, b %dx%d", hidden.width, hidden.height, b.width, b.height)
	}
	if got, want := l.View(), "aabbb\naaccc\naaccc"; got != want {
		t.Fatalf("view\n%s\nwant\n%s", got, want)
	}
	if p, ok := l.At(3, 2); !ok || p.Pane != ui.Component(c) || p.At.Y != 1 {
		t.Fatalf("At(3, 2) = %+v, %v", p, ok)
	}
	if _, ok := l.At(5, 0); ok {
		t.Fatal("a cell outside every pane has one")
	}
	if l.Of(a) != (ui.Rect{W: 2, H: 3}) || l.Of(hidden) != (ui.Rect{}) {
		t.Fatalf("Of: a %+v, hidden %+v", l.Of(a), l.Of(hidden))
	}
}
