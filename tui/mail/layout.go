package mail

import "sandview/tui/ui"

// layout places the panes of the mail screen; a zero Rect is a hidden
// pane. Coordinates are relative to the screen.
type layout struct {
	mode                          ui.Mode
	inboxes, emails, reader, auth ui.Rect
}

// threeColumns is the width from which the wide layout shows the inbox
// pane beside the message list; narrower, they share the left half.
const threeColumns = 160

// computeLayout splits a body of width x height cells for the focused pane:
// inboxes | emails | reader over auth when wide (the reader at least half
// the width, the auth pane one line tall unless authExpanded; below 160
// columns the inbox pane shows in the list's place while focused), a list over
// the reader when medium, the focused pane alone when narrow.
func computeLayout(width, height int, focus Pane, authExpanded bool) layout {
	l := layout{mode: ui.ModeFor(width)}
	switch l.mode {
	case ui.Wide:
		restW := (width + 1) / 2
		inW := ui.Clamp(width*15/100, 28, 36)
		if width < threeColumns {
			// Two columns: the inbox pane takes the list's place while it
			// has the focus, so the list keeps the subject's room.
			inW = 0
			if focus == PaneInboxes {
				inW = width - restW
			}
		}
		msgW := width - inW - restW
		authH := authCollapsedHeight
		if authExpanded {
			authH = ui.Clamp(height*2/5, 8, 16)
		}
		if height-authH < 10 {
			authH = 0
		}
		if inW > 0 {
			l.inboxes = ui.Rect{X: 0, Y: 0, W: inW, H: height}
		}
		if msgW > 0 {
			l.emails = ui.Rect{X: inW, Y: 0, W: msgW, H: height}
		}
		l.reader = ui.Rect{X: inW + msgW, Y: 0, W: restW, H: height - authH}
		if authH > 0 {
			l.auth = ui.Rect{X: inW + msgW, Y: height - authH, W: restW, H: authH}
		}
	case ui.Medium:
		listH := ui.Clamp(height*2/5, 5, height-5)
		list := ui.Rect{X: 0, Y: 0, W: width, H: listH}
		if focus == PaneInboxes {
			l.inboxes = list
		} else {
			l.emails = list
		}
		l.reader = ui.Rect{X: 0, Y: listH, W: width, H: height - listH}
	default:
		full := ui.Rect{X: 0, Y: 0, W: width, H: height}
		switch focus {
		case PaneInboxes:
			l.inboxes = full
		case PaneEmails:
			l.emails = full
		default:
			l.reader = full
		}
	}
	return l
}
