package keys

import "charm.land/bubbles/v2/key"

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

// Groups are the bindings of the webhooks view in titled groups.
func (k WebhookKeyMap) Groups() []Group {
	return []Group{
		moveGroup(k.ListKeyMap, k.NextPane, k.PrevPane, k.Open, k.Back),
		{"Webhooks", []key.Binding{k.New, k.Edit, k.Test, k.Rotate, k.Toggle, k.Delete, k.Reveal}},
		{"Receiver", []key.Binding{k.Receiver, k.Clear, k.Reload, k.Close, k.Help, k.Quit}},
	}
}

// FullHelp is the help of the webhooks view: the groups' bindings.
func (k WebhookKeyMap) FullHelp() [][]key.Binding { return Columns(k.Groups()) }

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
