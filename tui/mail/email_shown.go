package mail

import "sandview/tui/ui"

// shown is what the email list shows: the listing, the positions in it
// that match the search, and the cursor over those; it answers which
// email is under the cursor and where one is.
type shown struct {
	scope    listing
	filtered []int   // positions in scope.emails that match the search
	list     ui.List // over filtered
}
