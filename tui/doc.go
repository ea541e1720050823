// Package tui is sandview's terminal inbox viewer, built with Bubble Tea v2.
//
// One root Model delegates to one sub-model per pane (inbox list, message
// list, message with tabs, auth report, status bar) and to modal forms. All
// I/O runs in tea.Cmds that talk to the service only through the client
// package (behind the service interface of commands.go); the live feed turns
// new mail and connection-state changes into tea.Msgs. Untrusted text is
// sanitized once, when it enters the model.
package tui
