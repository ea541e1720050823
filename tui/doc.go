// Package tui is sandview's terminal inbox viewer, built with Bubble Tea v2.
//
// One root Model delegates to one sub-model per pane (inbox list, message
// list, message with tabs, auth report, status bar), to the webhooks view
// (webhook list, detail, the built-in receiver's deliveries) and to modal
// forms. All I/O runs in tea.Cmds that talk to the service only through the
// client package (behind the service interface of service.go); the live
// feed (feed.go) turns new mail and connection-state changes into tea.Msgs.
// Untrusted text is sanitized once, when it enters the model.
package tui
