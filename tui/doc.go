// Package tui is sandview's terminal inbox viewer, built with Bubble Tea v2.
//
// The root model (App, app.go) owns the shared ui.Context and two screens:
// the mail screen (package mail) and the webhooks screen (package
// webhooks). It only routes: a key goes to the open dialog, else to the
// shown screen, which routes it to its focused pane; results and live
// events go to the screen they belong to, shown or not. Around the screen
// it draws the SMTP banner, the status bar and the key line. The live feed
// (package feed) turns what the client pushes into messages. Every call
// to the service goes through one interface, service.Service, whose
// implementation over the client (package service) is the only code here
// that holds the client; the screens decide on the client's typed errors.
//
// The program checks the API key at start and shows what to do when the
// server refuses it (conn.go); the status bar says "connecting…" from the
// first frame, and why a reconnect waits. It looks at the keystore every
// few seconds, so inboxes the CLI saves appear; `!` shows the log of status
// messages. When it ends, the built-in webhook receiver's webhooks are
// deleted. ClientOptions are the reconnect settings it wants of its
// client.
//
// Width: every string from the service is sanitized (termtext.Sanitize,
// SanitizeLine) once, as it enters, and every width is measured with
// termtext.Width; panes are drawn to their exact size and put side by
// side without being measured again. Grapheme cluster mode (2027) is left
// to Bubble Tea, which turns it on where the terminal supports it:
// sanitized text is as wide with it as without it, so nothing forces it
// either way. HTML links are OSC 8 hyperlinks only where the terminal is
// known to show them (Settings.Hyperlinks, which the command line decides
// from the terminal's environment). The TUI reads no environment: its
// Settings come from the command line, built once and shared by the root
// model and the screens.
//
//	tui/          the root model, Run and Config, status bar
//	tui/service   the Service interface and its implementation over the client
//	tui/ui        Component/Screen/Dialog contracts, shared Context, widgets
//	tui/mail      the mail screen and its panes
//	tui/webhooks  the webhooks screen and its panes
//	tui/feed      the live feed: client callbacks to queued tea messages
//	tui/tuitest   fixtures and helpers for the tests of these packages
package tui
