package ui

import "strings"

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

// Beside puts blocks side by side, line by line. Each block is a pane
// drawn exactly to its size (as Frame draws), so nothing is measured or
// padded again; a block with fewer lines leaves its lines empty.
func Beside(blocks ...string) string {
	split := make([][]string, len(blocks))
	height := 0
	for i, b := range blocks {
		split[i] = strings.Split(b, "\n")
		height = max(height, len(split[i]))
	}
	var sb strings.Builder
	for y := range height {
		if y > 0 {
			sb.WriteByte('\n')
		}
		for _, lines := range split {
			if y < len(lines) {
				sb.WriteString(lines[y])
			}
		}
	}
	return sb.String()
}

// Stack puts blocks of the same width one above another.
func Stack(blocks ...string) string { return strings.Join(blocks, "\n") }
