// Package webhooks is the webhooks screen of sandview's terminal UI: the
// webhooks of every scope with the metrics summary, the selected webhook's
// details (secret masked until revealed, stats, the answers to test and
// rotate), the deliveries of the built-in receiver, and the form that
// creates or edits a webhook. Every call to the service runs in a tea.Cmd
// (commands.go) whose result the screen applies (results.go); untrusted
// text is sanitized when it enters the screen's data.
package webhooks
