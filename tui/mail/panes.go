package mail

import "sandview/tui/ui"

// panes are the mail screen's panes with the focus ring over the three
// focusable ones, and where the layout puts them in width x height cells:
// they are focused, sized, drawn and kept pointing at the selected inbox
// together.
type panes struct {
	inboxes *inboxList
	emails  *emailList
	reader  *reader
	auth    *authReport
	ring    ui.FocusRing // inboxes, emails, reader
	lay     layout
	width   int
	height  int
}
