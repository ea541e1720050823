// Package keys owns every key binding of sandview's terminal UI: one KeyMap
// for the panes (with ShortHelp and FullHelp for the bubbles help view) and
// small key maps for forms, prompts and confirmations. No other package
// defines a binding.
package keys
