// Package ui is what every screen of sandview's terminal UI is built from:
// the Component, Screen and Dialog contracts, the shared Context (theme,
// key maps, clock, dialog stack, status message), the one list widget, the
// text field and choice widgets, the confirm, prompt and help dialogs, and
// the helpers that draw frames, wrap text without losing any and fit it to
// exact widths, all measured with model.TextWidth. It knows nothing of
// mail or webhooks.
package ui
