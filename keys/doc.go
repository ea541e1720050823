// Package keys owns every key binding of sandview's terminal UI: one KeyMap
// for the mail screen and one for the webhooks screen (each with ShortHelp
// and FullHelp for the bubbles help view, and the ListKeyMap every list
// shares), small key maps for forms, prompts and confirmations, and the
// line-editing keys of text fields (EditKeyMap, which also configures
// bubbles' textinput). No other package defines a binding.
package keys
