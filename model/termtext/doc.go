// Package termtext prepares untrusted text for a terminal: Sanitize and
// SanitizeLine remove what could move the cursor, restyle the screen or be
// drawn at a width the layout did not expect, and Width measures text in
// terminal cells. The CLI and the TUI lay out every untrusted value with
// these; the server and model/ never need them.
package termtext
