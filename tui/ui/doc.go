// Package ui is what every screen of sandview's terminal UI is built from:
// the Component, Screen and Dialog contracts, the shared Context (theme,
// key maps, clock, dialog stack, status message and the log of the last
// LogSize of them), the one list widget, the text field and choice
// widgets, the confirm and prompt dialogs, the dialogs that scroll (the
// help, which flows its groups into as many columns as the width holds;
// text such as the log or a command's output), the key line, and the
// helpers that draw frames, wrap text without losing any and fit it to
// exact widths, all measured with termtext.Width. It knows nothing of
// mail or webhooks.
package ui
