// Package mail is the mail screen of sandview's terminal UI: the inbox
// list, the email list with its filter, the reader with its tabs and the
// authentication report, laid out side by side or one at a time, and the
// store of what is known of each inbox. Every call to the service runs in a
// tea.Cmd (commands.go); its result comes back as a message the screen
// applies (results.go). Untrusted text is sanitized once, when it enters
// the store.
package mail
