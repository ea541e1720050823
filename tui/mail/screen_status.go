package mail

import "sandview/tui/ui"

// loadSpinner runs the loading indicator the email list shows while
// inboxes wait for their lists.
type loadSpinner struct {
	ctx      *ui.Context
	list     *emailList
	spinning bool
}

// mailStatus is what the program's chrome shows of the mail: the window
// title, the banner saying where to send mail, the totals and the live
// inboxes.
type mailStatus struct {
	ctx   *ui.Context
	state *mailState
	set   *ui.Settings
	*panes
}
