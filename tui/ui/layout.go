package ui

import (
	"slices"
	"strings"
)

// Mode is how many panes a screen shows side by side.
type Mode int

// Layout modes, from the narrowest terminal up.
const (
	Narrow Mode = iota // one pane at a time (< 80 columns)
	Medium             // a list above the detail (80-119)
	Wide               // every pane side by side (>= 120)
)

// ModeFor is the layout mode of a terminal width columns wide.
func ModeFor(width int) Mode {
	switch {
	case width >= 120:
		return Wide
	case width >= 80:
		return Medium
	}
	return Narrow
}

// Rect is an area of a screen; the zero Rect is a hidden pane.
type Rect struct{ X, Y, W, H int }

// Contains reports whether the cell x, y is inside r.
func (r Rect) Contains(x, y int) bool {
	return r.W > 0 && r.H > 0 && x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// SizeOr is the size of r, or width x height when r is hidden: hidden panes
// keep a usable size so their scrolling stays sane.
func (r Rect) SizeOr(width, height int) (int, int) {
	if r.W == 0 {
		return width, height
	}
	return r.W, r.H
}

// Stack puts blocks of the same width one above another.
func Stack(blocks ...string) string { return strings.Join(blocks, "\n") }

// Placed is a pane of a screen and the area a layout gives it; the zero
// Rect hides it.
type Placed struct {
	Pane Component
	At   Rect
}

// Layout is where a screen's panes go: each pane with its area, hidden
// ones with the zero Rect, and the mode it was laid out in. A screen
// sizes, draws and hit-tests its panes through it.
type Layout struct {
	Mode  Mode
	Panes []Placed
}

// Resize sizes every pane to its area; a hidden pane to width x height
// (Rect.SizeOr).
func (l Layout) Resize(width, height int) {
	for _, p := range l.Panes {
		p.Pane.SetSize(p.At.SizeOr(width, height))
	}
}

// Of is the area of pane c: the zero Rect when it is hidden.
func (l Layout) Of(c Component) Rect {
	for _, p := range l.Panes {
		if p.Pane == c {
			return p.At
		}
	}
	return Rect{}
}

// At is the pane shown at cell x, y, if any.
func (l Layout) At(x, y int) (Placed, bool) {
	for _, p := range l.Panes {
		if p.At.Contains(x, y) {
			return p, true
		}
	}
	return Placed{}, false
}

// View draws the panes shown, each in its area (as Frame draws, exactly
// to its size), row by row: each row is the lines of the panes it
// crosses, left to right.
func (l Layout) View() string {
	var shown []Placed
	var lines [][]string
	height := 0
	for _, p := range l.Panes {
		if p.At.W <= 0 || p.At.H <= 0 {
			continue
		}
		shown = append(shown, p)
		lines = append(lines, strings.Split(p.Pane.View(), "\n"))
		height = max(height, p.At.Y+p.At.H)
	}
	order := make([]int, len(shown))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return shown[a].At.X - shown[b].At.X })
	var sb strings.Builder
	for y := range height {
		if y > 0 {
			sb.WriteByte('\n')
		}
		for _, i := range order {
			at := shown[i].At
			if y >= at.Y && y < at.Y+at.H && y-at.Y < len(lines[i]) {
				sb.WriteString(lines[i][y-at.Y])
			}
		}
	}
	return sb.String()
}
