package mail

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/tui/mail/reader"
	"sandview/tui/ui"
)

// panes are the mail screen's panes with the focus ring over the three
// focusable ones, and where the layout puts them in width x height cells:
// they are focused, sized, drawn and kept pointing at the selected inbox
// together.
type panes struct {
	inboxes *inboxList
	emails  *emailList
	reader  *reader.Reader
	auth    *authReport
	ring    ui.FocusRing // inboxes, emails, reader
	lay     ui.Layout
	width   int
	height  int
}

// threeColumns is the width from which the wide layout shows the inbox
// pane beside the message list; narrower, they share the left half.
const threeColumns = 160

// layout places the panes in a body of width x height cells for the
// focused pane: inboxes | emails | reader over auth when wide (the reader
// at least half the width, the auth pane one line tall unless expanded;
// below 160 columns the inbox pane shows in the list's place while
// focused), a list over the reader when medium, the focused pane alone
// when narrow. A pane left out is hidden.
func (s *panes) layout(width, height int) ui.Layout {
	var inboxes, emails, rdr, auth ui.Rect
	mode := ui.ModeFor(width)
	focus := s.Focus()
	switch mode {
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
		if s.auth.expanded {
			authH = ui.Clamp(height*2/5, 8, 16)
		}
		if height-authH < 10 {
			authH = 0
		}
		if inW > 0 {
			inboxes = ui.Rect{X: 0, Y: 0, W: inW, H: height}
		}
		if msgW > 0 {
			emails = ui.Rect{X: inW, Y: 0, W: msgW, H: height}
		}
		rdr = ui.Rect{X: inW + msgW, Y: 0, W: restW, H: height - authH}
		if authH > 0 {
			auth = ui.Rect{X: inW + msgW, Y: height - authH, W: restW, H: authH}
		}
	case ui.Medium:
		listH := ui.Clamp(height*2/5, 5, height-5)
		list := ui.Rect{X: 0, Y: 0, W: width, H: listH}
		if focus == PaneInboxes {
			inboxes = list
		} else {
			emails = list
		}
		rdr = ui.Rect{X: 0, Y: listH, W: width, H: height - listH}
	default:
		full := ui.Rect{X: 0, Y: 0, W: width, H: height}
		switch focus {
		case PaneInboxes:
			inboxes = full
		case PaneEmails:
			emails = full
		default:
			rdr = full
		}
	}
	return ui.Layout{Mode: mode, Panes: []ui.Placed{{Pane: s.inboxes, At: inboxes}, {Pane: s.emails, At: emails}, {Pane: s.reader, At: rdr}, {Pane: s.auth, At: auth}}}
}

// SetSize lays the panes out in width x height cells.
func (s *panes) SetSize(width, height int) {
	s.width, s.height = width, height
	s.lay = s.layout(width, height)
	s.lay.Resize(width, height)
}

// View draws the visible panes.
func (s *panes) View() string { return s.lay.View() }

// setFocus focuses a pane; layouts that show one list at a time follow.
func (s *panes) setFocus(p Pane) {
	s.ring.Focus(int(p))
	s.SetSize(s.width, s.height)
}

// Focus is the focused pane.
func (s *panes) Focus() Pane { return Pane(s.ring.At()) }

// sync points the email list at the selected inbox, and has it list again
// when the emails changed; the reader lets go of an email the list no
// longer holds.
func (s *panes) sync() {
	s.emails.setEntry(s.inboxes.selected())
	s.dropStale()
	s.emails.hold(s.Focus() == PaneReader && s.shown().id != "")
}

// dropStale closes the reader when the email it shows is not in the
// message list (another inbox is selected, the email is gone), and gives
// the list the keyboard if the reader had it: the preview then follows the
// list's cursor.
func (s *panes) dropStale() {
	if s.shown().id == "" || s.emails.lists(s.shown()) {
		return
	}
	s.reader.Clear()
	if s.Focus() == PaneReader {
		s.setFocus(PaneEmails)
	}
}

// CapturesInput reports whether a search field has the keyboard.
func (s *panes) CapturesInput() bool { return s.emails.CapturesInput() || s.reader.Typing() }

// Paste types pasted text into the search field that has the keyboard.
func (s *panes) Paste(text string) {
	if s.reader.Typing() {
		s.reader.Paste(text)
		return
	}
	s.emails.Paste(text)
}

// shown is the email the reader shows ({} when none).
func (s *panes) shown() emailRef {
	address, id := s.reader.Shown()
	return emailRef{address, id}
}

// switchTab shows the reader's tab of the key msg (tabs: their keys, in
// order); in the narrow layout the reader takes the focus.
func (s *panes) switchTab(msg tea.KeyPressMsg, tabs []key.Binding) tea.Cmd {
	for i, b := range tabs {
		if key.Matches(msg, b) {
			s.reader.SetTab(reader.Tab(i))
		}
	}
	if s.lay.Mode == ui.Narrow && s.shown().id != "" {
		s.setFocus(PaneReader)
	}
	return tea.Batch(s.reader.LoadRaw(), s.reader.LoadRendered())
}
