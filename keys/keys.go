package keys

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
)

// KeyMap holds the bindings of the main screen.
type KeyMap struct {
	ListKeyMap
	NextPane key.Binding
	PrevPane key.Binding
	Open     key.Binding
	Back     key.Binding

	TabBody        key.Binding
	TabHeaders     key.Binding
	TabLinks       key.Binding
	TabAttachments key.Binding
	TabRaw         key.Binding
	TabAuth        key.Binding

	New        key.Binding
	Delete     key.Binding
	Resync     key.Binding
	Copy       key.Binding
	OpenLink   key.Binding
	Save       key.Binding
	Filter     key.Binding
	ToggleHTML key.Binding
	MarkUnread key.Binding
	Export     key.Binding
	Import     key.Binding
	Webhooks   key.Binding
	Help       key.Binding
	Quit       key.Binding
	// ForceQuit quits from anywhere, even while a dialog has the keyboard.
	ForceQuit key.Binding
	// ViewHTML opens the HTML part in the browser, remote content blocked.
	ViewHTML key.Binding
	// AuthDetails expands the one-line auth verdict into the report.
	AuthDetails key.Binding
}

// Default returns the standard bindings: arrows and vim keys, tab between
// panes, 1-6 for the message tabs and one letter per action.
func Default() KeyMap {
	return KeyMap{
		ListKeyMap: ListKeyMap{
			Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
			Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
			PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
			PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "space"), key.WithHelp("pgdn", "page down")),
			Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
			Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),
		},
		NextPane: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),

		TabBody:        key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "body")),
		TabHeaders:     key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "headers")),
		TabLinks:       key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "links")),
		TabAttachments: key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "attachments")),
		TabRaw:         key.NewBinding(key.WithKeys("5"), key.WithHelp("5", "raw source")),
		TabAuth:        key.NewBinding(key.WithKeys("6"), key.WithHelp("6", "auth report")),

		New:        key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new inbox")),
		Delete:     key.NewBinding(key.WithKeys("d", "delete"), key.WithHelp("d", "delete")),
		Resync:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "resync")),
		Copy:       key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy address/link")),
		OpenLink:   key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open link/attachment")),
		Save:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save attachment/.eml")),
		Filter:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ToggleHTML: key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "text/html")),
		MarkUnread: key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "read/unread")),
		Export:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export inbox")),
		Import:     key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "import inbox")),
		Webhooks:   key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "webhooks")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		ForceQuit:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),

		ViewHTML:    key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "html in browser")),
		AuthDetails: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "auth details")),
	}
}

// Tabs returns the six tab bindings in tab order (Body, Headers, Links,
// Attachments, Raw, Auth).
func (k KeyMap) Tabs() []key.Binding {
	return []key.Binding{k.TabBody, k.TabHeaders, k.TabLinks, k.TabAttachments, k.TabRaw, k.TabAuth}
}

// ShortHelp is the one-line help always shown under the panes.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextPane, k.Open, k.Back, k.New, k.Delete, k.Filter, k.Copy, k.Webhooks, k.Help, k.Quit}
}

// FullHelp is the help shown by `?`, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.NextPane, k.PrevPane, k.Open, k.Back},
		k.Tabs(),
		{k.New, k.Delete, k.Resync, k.Export, k.Import, k.Copy, k.Webhooks},
		{k.Filter, k.MarkUnread, k.ToggleHTML, k.ViewHTML, k.AuthDetails, k.OpenLink, k.Save, k.Help, k.Quit},
	}
}

// ListKeyMap holds the bindings that move the cursor of a list (or scroll
// a text) by a row, a page or to either end.
type ListKeyMap struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
}

// ShortHelp lists the movement bindings.
func (k ListKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// FullHelp lists the movement bindings in one column.
func (k ListKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

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

// WebhookKeyMap holds the bindings of the webhooks view.
type WebhookKeyMap struct {
	ListKeyMap
	NextPane key.Binding
	PrevPane key.Binding
	Open     key.Binding
	Back     key.Binding

	New      key.Binding
	Edit     key.Binding
	Test     key.Binding
	Rotate   key.Binding
	Toggle   key.Binding // enable/disable
	Delete   key.Binding
	Reveal   key.Binding // show/hide the secret
	Receiver key.Binding // create a webhook pointing at the built-in receiver
	Clear    key.Binding // forget the received deliveries
	Reload   key.Binding
	Close    key.Binding // back to the mail view
	Help     key.Binding
	Quit     key.Binding
}

// DefaultWebhook returns the webhooks view bindings: the main screen's
// movement keys plus one letter per webhook action.
func DefaultWebhook() WebhookKeyMap {
	k := Default()
	return WebhookKeyMap{
		ListKeyMap: k.ListKeyMap,
		NextPane:   k.NextPane, PrevPane: k.PrevPane,
		Open: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Back: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),

		New:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new webhook")),
		Edit:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit")),
		Test:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "test")),
		Rotate:   key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "rotate secret")),
		Toggle:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "enable/disable")),
		Delete:   key.NewBinding(key.WithKeys("d", "delete"), key.WithHelp("d", "delete")),
		Reveal:   key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "show/hide secret")),
		Receiver: key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "receive here")),
		Clear:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "clear deliveries")),
		Reload:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
		Close:    key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "mail view")),
		Help:     k.Help,
		Quit:     k.Quit,
	}
}

// ShortHelp is the key line of the webhooks view.
func (k WebhookKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextPane, k.New, k.Edit, k.Test, k.Toggle, k.Delete, k.Reveal, k.Receiver, k.Back, k.Help}
}

// FullHelp is the help of the webhooks view, in columns.
func (k WebhookKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.NextPane, k.PrevPane, k.Open, k.Back},
		{k.New, k.Edit, k.Test, k.Rotate, k.Toggle, k.Delete, k.Reveal},
		{k.Receiver, k.Clear, k.Reload, k.Close, k.Help, k.Quit},
	}
}

// WebhookFormKeyMap holds the bindings of the webhook form.
type WebhookFormKeyMap struct {
	Next       key.Binding
	Prev       key.Binding
	Toggle     key.Binding // next choice; tick the event under the cursor
	Left       key.Binding // previous choice; previous event
	Right      key.Binding // next choice; next event
	AddRule    key.Binding
	RemoveRule key.Binding
	Submit     key.Binding
	Cancel     key.Binding
}

// DefaultWebhookForm returns the webhook form bindings.
func DefaultWebhookForm() WebhookFormKeyMap {
	return WebhookFormKeyMap{
		Next:       key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field")),
		Prev:       key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous field")),
		Toggle:     key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "tick/choose")),
		Left:       key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "previous")),
		Right:      key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "next")),
		AddRule:    key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "add rule")),
		RemoveRule: key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "remove rule")),
		Submit:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "save")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp lists the webhook form bindings.
func (k WebhookFormKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Toggle, k.AddRule, k.RemoveRule, k.Submit, k.Cancel}
}

// FullHelp lists the webhook form bindings in one column.
func (k WebhookFormKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Next, k.Prev, k.Toggle, k.Left, k.Right, k.AddRule, k.RemoveRule, k.Submit, k.Cancel}}
}
