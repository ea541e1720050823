package tui

// layoutMode is how many panes fit side by side.
type layoutMode int

const (
	layoutNarrow layoutMode = iota // one pane at a time (< 80 columns)
	layoutMedium                   // list above the message (80-119)
	layoutWide                     // inboxes | messages | message+auth (>= 120)
)

const (
	wideMin   = 120
	mediumMin = 80
)

// rect is an area of the screen.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return r.w > 0 && r.h > 0 && x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// layout places the panes; a zero rect is a hidden pane.
type layout struct {
	mode                             layoutMode
	inboxes, messages, message, auth rect
	top                              int // first body line
	bodyHeight                       int
}

// computeLayout splits width x height (below top lines of banner, above the
// status and help lines) for the focused pane.
func computeLayout(width, height, top int, focus pane) layout {
	bodyH := max(height-top-2, 3)
	l := layout{top: top, bodyHeight: bodyH}
	switch {
	case width >= wideMin:
		l.mode = layoutWide
		inW := clampInt(width*18/100, 28, 40)
		msgW := (width - inW) / 2
		restW := width - inW - msgW
		authH := clampInt(bodyH*2/5, 8, 16)
		if bodyH-authH < 10 {
			authH = 0
		}
		l.inboxes = rect{0, top, inW, bodyH}
		l.messages = rect{inW, top, msgW, bodyH}
		l.message = rect{inW + msgW, top, restW, bodyH - authH}
		if authH > 0 {
			l.auth = rect{inW + msgW, top + bodyH - authH, restW, authH}
		}
	case width >= mediumMin:
		l.mode = layoutMedium
		listH := clampInt(bodyH*2/5, 5, bodyH-5)
		list := rect{0, top, width, listH}
		if focus == paneInboxes {
			l.inboxes = list
		} else {
			l.messages = list
		}
		l.message = rect{0, top + listH, width, bodyH - listH}
	default:
		l.mode = layoutNarrow
		full := rect{0, top, width, bodyH}
		switch focus {
		case paneInboxes:
			l.inboxes = full
		case paneMessages:
			l.messages = full
		default:
			l.message = full
		}
	}
	return l
}
