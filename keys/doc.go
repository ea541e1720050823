// Package keys owns every key binding of sandview's terminal UI: one KeyMap
// for the mail screen and one for the webhooks screen (each in titled
// Groups, which the help lays out and Markdown turns into the README's key
// table, checked by a test; and the ListKeyMap every list shares), small
// key maps for forms, prompts and confirmations, and the line-editing keys
// of text fields (EditKeyMap, which also configures bubbles' textinput).
// No other package defines a binding. A key means one thing on a screen,
// but for n and N, which find in the open message while the reader has
// the keyboard.
package keys
