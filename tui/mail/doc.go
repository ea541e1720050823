// Package mail is the mail screen of sandview's terminal UI: the inbox
// list, the email list with its search, the reader (package
// tui/mail/reader, which host.go serves) and the authentication report,
// laid out side by side or one at a time (layout.go, ui.Layout), and its
// state (mailState): what is known of each inbox. Every call to the service runs in a
// tea.Cmd (commands.go); its result comes back as a message the screen
// applies (results.go). Untrusted text is sanitized once, when it enters
// the state.
//
// The list searches with the query language of model/search (search.go):
// the query is parsed on each edit and matched through one search.Index,
// which the screen prepares in the background as mail arrives; in:all
// lists every inbox. Inboxes are listed with their content, so the auth
// column and a search of bodies need nothing more; a query that needs
// content an inbox lacks lists it again, once. An inbox's first listing
// is streamed (list_stream.go): its newest emails are shown as soon as
// they are opened, the rest merge in batches with a progress in the
// title and the search line. Emails are marked for the actions on many
// (bulk.go), which ask once, naming how many, and run as one command.
//
// The message list has the keyboard at start. Where the reader is on
// screen beside the list, it follows the cursor once the cursor rests
// (preview.go, a tea.Tick debounce); from the reader, J and K move on,
// / searches the message and | pipes it to a shell command (in the
// reader). Copies go to the terminal's clipboard by
// OSC 52 and, inside tmux, to its buffer too (clipboard.go).
package mail
