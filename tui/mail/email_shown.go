package mail

import "sandview/tui/ui"

// shown is what the email list shows and the cursor over it: the
// listing, the positions in it that match the search, and which email the
// cursor is on; it answers which email is under the cursor and where one
// is, and notes the user's moves.
type shown struct {
	scope    listing
	filtered []int   // positions in scope.emails that match the search
	list     ui.List // over filtered

	cur emailRef // the email under the cursor, kept across list changes
	// moved is set once the user moved the cursor in this inbox (opening
	// and closing the reader is no move); until then the cursor stays on
	// the top row, the newest email, as mail arrives. held: the reader has
	// the keyboard, and the cursor stays on the email it shows until the
	// list has the keyboard again.
	moved bool
	held  bool
}
