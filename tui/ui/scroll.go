package ui

// Scroller is a window of a given height over lines of text laid out
// already: scrolling moves an offset, and Visible slices the lines, so a
// frame costs the same for ten lines as for a million.
type Scroller struct {
	lines  []string
	offset int
	height int
}

// SetLines replaces the lines, keeping the offset within them.
func (s *Scroller) SetLines(lines []string) {
	s.lines = lines
	s.ScrollTo(s.offset)
}

// SetHeight sets how many lines are in view.
func (s *Scroller) SetHeight(height int) {
	s.height = max(height, 1)
	s.ScrollTo(s.offset)
}

// Lines are the lines scrolled over.
func (s *Scroller) Lines() []string { return s.lines }

// Len is the number of lines.
func (s *Scroller) Len() int { return len(s.lines) }

// Height is how many lines are in view.
func (s *Scroller) Height() int { return s.height }

// Offset is the first line in view.
func (s *Scroller) Offset() int { return s.offset }

// ScrollTo puts line offset at the top, as far as the lines go.
func (s *Scroller) ScrollTo(offset int) {
	s.offset = Clamp(offset, 0, len(s.lines)-s.height)
}

// ScrollBy scrolls by delta lines (negative upwards).
func (s *Scroller) ScrollBy(delta int) { s.ScrollTo(s.offset + delta) }

// Reveal scrolls as little as needed to bring lines top to bottom
// (inclusive) into view, the top one first when they do not all fit.
func (s *Scroller) Reveal(top, bottom int) {
	s.ScrollTo(Clamp(s.offset, bottom-s.height+1, top))
}

// Visible is the lines in view, padded with empty lines to the height.
func (s *Scroller) Visible() []string { return Window(s.lines, s.offset, s.height) }

// Percent is how far down the view reaches, 0 to 100; -1 when every line
// is in view.
func (s *Scroller) Percent() int {
	if len(s.lines) <= s.height {
		return -1
	}
	return min(100, (s.offset+s.height)*100/len(s.lines))
}
