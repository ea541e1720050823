package ui

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
