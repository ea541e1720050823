package keys

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
)

// FormKeyMap holds the bindings of the create-inbox form.
type FormKeyMap struct {
	Next   key.Binding
	Prev   key.Binding
	Toggle key.Binding // next choice
	Back   key.Binding // previous choice
	Submit key.Binding
	Cancel key.Binding
}

// DefaultForm returns the form bindings.
func DefaultForm() FormKeyMap {
	return FormKeyMap{
		Next:   key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field")),
		Prev:   key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous field")),
		Toggle: key.NewBinding(key.WithKeys("space", "right"), key.WithHelp("space/←/→", "change choice")),
		Back:   key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "previous choice")),
		Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "create")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp lists the form bindings.
func (k FormKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Prev, k.Toggle, k.Submit, k.Cancel}
}

// FullHelp lists the form bindings in one column.
func (k FormKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// ChaosFormKeyMap holds the bindings of the chaos dialog: space switches
// the focused kind on or off (its value is typed in place, so the arrows
// keep moving the cursor).
type ChaosFormKeyMap struct {
	Next   key.Binding
	Prev   key.Binding
	Toggle key.Binding
	Submit key.Binding
	Cancel key.Binding
}

// DefaultChaosForm returns the chaos dialog's bindings.
func DefaultChaosForm() ChaosFormKeyMap {
	return ChaosFormKeyMap{
		Next:   key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next kind")),
		Prev:   key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous kind")),
		Toggle: key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "on/off")),
		Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp lists the chaos dialog's bindings.
func (k ChaosFormKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Prev, k.Toggle, k.Submit, k.Cancel}
}

// FullHelp lists the chaos dialog's bindings in one column.
func (k ChaosFormKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// PromptKeyMap holds the bindings of a one-line prompt (a path, a filter).
type PromptKeyMap struct {
	Accept key.Binding
	Cancel key.Binding
}

// DefaultPrompt returns the prompt bindings.
func DefaultPrompt() PromptKeyMap {
	return PromptKeyMap{
		Accept: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "accept")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp lists the prompt bindings.
func (k PromptKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Accept, k.Cancel} }

// FullHelp lists the prompt bindings in one column.
func (k PromptKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// ConfirmKeyMap holds the bindings of a yes/no confirmation.
type ConfirmKeyMap struct {
	Yes key.Binding
	No  key.Binding
}

// DefaultConfirm returns the confirmation bindings.
func DefaultConfirm() ConfirmKeyMap {
	return ConfirmKeyMap{
		Yes: key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:  key.NewBinding(key.WithKeys("n", "N", "esc", "q"), key.WithHelp("n/esc", "no")),
	}
}

// ShortHelp lists the confirmation bindings.
func (k ConfirmKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Yes, k.No} }

// FullHelp lists the confirmation bindings in one column.
func (k ConfirmKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// EditKeyMap holds the line-editing bindings of text fields.
type EditKeyMap struct {
	Left          key.Binding
	Right         key.Binding
	Home          key.Binding
	End           key.Binding
	Backspace     key.Binding
	Delete        key.Binding
	DeleteToStart key.Binding
	DeleteWord    key.Binding
}

// DefaultEdit returns the line-editing bindings.
func DefaultEdit() EditKeyMap {
	return EditKeyMap{
		Left:          key.NewBinding(key.WithKeys("left", "ctrl+b"), key.WithHelp("←", "left")),
		Right:         key.NewBinding(key.WithKeys("right", "ctrl+f"), key.WithHelp("→", "right")),
		Home:          key.NewBinding(key.WithKeys("home", "ctrl+a"), key.WithHelp("home", "start")),
		End:           key.NewBinding(key.WithKeys("end", "ctrl+e"), key.WithHelp("end", "end")),
		Backspace:     key.NewBinding(key.WithKeys("backspace", "ctrl+h"), key.WithHelp("⌫", "delete left")),
		Delete:        key.NewBinding(key.WithKeys("delete", "ctrl+d"), key.WithHelp("del", "delete right")),
		DeleteToStart: key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "clear to start")),
		DeleteWord:    key.NewBinding(key.WithKeys("ctrl+w", "alt+backspace"), key.WithHelp("ctrl+w", "delete word")),
	}
}

// TextInput returns the bindings of a bubbles text input: these line-editing
// keys, and every other action of the widget (word moves, clipboard,
// suggestions) switched off so it cannot shadow a form's keys.
func (k EditKeyMap) TextInput() textinput.KeyMap {
	off := key.NewBinding(key.WithDisabled())
	return textinput.KeyMap{
		CharacterForward:        k.Right,
		CharacterBackward:       k.Left,
		LineStart:               k.Home,
		LineEnd:                 k.End,
		DeleteCharacterBackward: k.Backspace,
		DeleteCharacterForward:  k.Delete,
		DeleteBeforeCursor:      k.DeleteToStart,
		DeleteWordBackward:      k.DeleteWord,
		WordForward:             off,
		WordBackward:            off,
		DeleteWordForward:       off,
		DeleteAfterCursor:       off,
		Paste:                   off,
		AcceptSuggestion:        off,
		NextSuggestion:          off,
		PrevSuggestion:          off,
	}
}
