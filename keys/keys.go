package keys

import "charm.land/bubbles/v2/key"

// KeyMap holds the bindings of the mail screen.
type KeyMap struct {
	ListKeyMap
	NextPane key.Binding
	PrevPane key.Binding
	Open     key.Binding
	// Back goes back a step: clears the marks, then the search; from the
	// reader it gives the list the keyboard (never from the list to the
	// inboxes).
	Back key.Binding

	TabBody        key.Binding
	TabHeaders     key.Binding
	TabLinks       key.Binding
	TabAttachments key.Binding
	TabRaw         key.Binding
	TabAuth        key.Binding
	TabChecks      key.Binding
	TabRendered    key.Binding

	// Search searches the message list, or the open message in the reader.
	Search      key.Binding
	Mark        key.Binding // mark the message under the cursor
	MarkAll     key.Binding // mark (or unmark) every message shown
	Delete      key.Binding // the marked messages, else the one under the cursor
	MarkUnread  key.Binding // read/unread, of the marked messages or one
	MarkAllRead key.Binding
	DeleteAll   key.Binding // every message of the inbox
	Save        key.Binding // the chosen attachment, the message or the marked ones as .eml
	SaveAll     key.Binding // every attachment of the marked messages, or of one

	// The reader's own keys.
	NextMessage key.Binding
	PrevMessage key.Binding
	NextMatch   key.Binding
	PrevMatch   key.Binding
	ToggleHTML  key.Binding
	// ViewHTML opens the HTML part in the browser, remote content blocked.
	ViewHTML key.Binding
	// AuthDetails expands the one-line auth verdict into the report.
	AuthDetails key.Binding
	OpenLink    key.Binding
	// CheckLinks checks every link of the open email (in the Links tab).
	CheckLinks key.Binding
	Pipe       key.Binding // the raw message to a shell command
	// RenderWidth and RenderDark switch the Rendered tab's width
	// (375/600/1024 px) and colour scheme (light/dark).
	RenderWidth key.Binding
	RenderDark  key.Binding

	New    key.Binding
	Import key.Binding
	Export key.Binding
	Resync key.Binding
	Copy   key.Binding
	// CopyCode copies the open email's one-time code (model/extract).
	CopyCode key.Binding
	Webhooks key.Binding
	// Chaos opens the chaos dialog of the inbox under the cursor.
	Chaos key.Binding
	Log   key.Binding
	Help  key.Binding
	// Quit closes the reader or leaves the search first; from the top it
	// quits.
	Quit key.Binding
	// ForceQuit quits from anywhere, even while a dialog has the keyboard.
	ForceQuit key.Binding
}

// Default returns the standard bindings: arrows and vim keys, tab between
// panes, 1-7 for the message tabs and one letter per action.
func Default() KeyMap {
	return KeyMap{
		ListKeyMap: DefaultList(),
		NextPane:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Open:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear marks/search, back")),

		TabBody:        key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "body")),
		TabHeaders:     key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "headers")),
		TabLinks:       key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "links")),
		TabAttachments: key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "attachments")),
		TabRaw:         key.NewBinding(key.WithKeys("5"), key.WithHelp("5", "raw source")),
		TabAuth:        key.NewBinding(key.WithKeys("6"), key.WithHelp("6", "auth report")),
		TabChecks:      key.NewBinding(key.WithKeys("7"), key.WithHelp("7", "checks (HTML, spam)")),
		TabRendered:    key.NewBinding(key.WithKeys("8"), key.WithHelp("8", "rendered (picture)")),

		Search:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		Mark:        key.NewBinding(key.WithKeys("space", "x"), key.WithHelp("space/x", "mark")),
		MarkAll:     key.NewBinding(key.WithKeys("*"), key.WithHelp("*", "mark all shown")),
		Delete:      key.NewBinding(key.WithKeys("d", "delete"), key.WithHelp("d", "delete")),
		MarkUnread:  key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "read/unread")),
		MarkAllRead: key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "mark all read")),
		DeleteAll:   key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "delete all mail")),
		Save:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save attachment/.eml")),
		SaveAll:     key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "save all attachments")),

		NextMessage: key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "next message")),
		PrevMessage: key.NewBinding(key.WithKeys("K"), key.WithHelp("K", "previous message")),
		NextMatch:   key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		PrevMatch:   key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		ToggleHTML:  key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "text/html")),
		ViewHTML:    key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "html in browser")),
		AuthDetails: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "auth details")),
		OpenLink:    key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open link/attachment")),
		CheckLinks:  key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "check links (Links tab)")),
		Pipe:        key.NewBinding(key.WithKeys("|"), key.WithHelp("|", "pipe to command")),
		RenderWidth: key.NewBinding(key.WithKeys("W"), key.WithHelp("W", "width 600/1024/375 (Rendered)")),
		RenderDark:  key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "light/dark (Rendered)")),

		New:       key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new inbox")),
		Import:    key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "import inbox")),
		Export:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export inbox")),
		Resync:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "resync, reconnect")),
		Copy:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy address/link")),
		CopyCode:  key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy one-time code")),
		Webhooks:  key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "webhooks")),
		Chaos:     key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "chaos (break delivery)")),
		Log:       key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "message log")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "close/quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
	}
}

// Tabs returns the eight tab bindings in tab order (Body, Headers, Links,
// Attachments, Raw, Auth, Checks, Rendered).
func (k KeyMap) Tabs() []key.Binding {
	return []key.Binding{k.TabBody, k.TabHeaders, k.TabLinks, k.TabAttachments, k.TabRaw, k.TabAuth, k.TabChecks, k.TabRendered}
}

// Group is a titled column of the help.
type Group struct {
	Title    string
	Bindings []key.Binding
}

// Groups are every binding of the mail screen in titled groups, as the
// help and the README show them: what a tester uses most first (open,
// search, read/unread, save, then quit in the App group, which the help
// puts at the top of its second column), the Move keys everyone knows
// last. The Reader group's keys act while the reader has the keyboard;
// there n and N find, not make an inbox.
func (k KeyMap) Groups() []Group {
	return []Group{
		{"Messages", []key.Binding{k.Open, k.Search, k.MarkUnread, k.MarkAllRead, k.Save, k.SaveAll, k.Mark, k.MarkAll, k.Delete, k.DeleteAll, k.Back}},
		{"Reader (focused)", []key.Binding{k.NextMessage, k.PrevMessage, k.Search, k.NextMatch, k.PrevMatch, k.ToggleHTML, k.ViewHTML, k.RenderWidth, k.RenderDark, k.AuthDetails, k.OpenLink, k.CheckLinks, k.Pipe, k.Copy, k.CopyCode}},
		{"App", []key.Binding{k.Quit, k.Help, k.Log, k.Webhooks, k.Chaos, k.ForceQuit}},
		{"Tabs", k.Tabs()},
		{"Inboxes", []key.Binding{k.New, k.Import, k.Export, k.Resync, k.Copy}},
		moveGroup(k.ListKeyMap, k.NextPane, k.PrevPane),
	}
}

// FullHelp is the help shown by `?`: the groups' bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding { return Columns(k.Groups()) }

// Columns are the bindings of groups, a column each (for FullHelp).
func Columns(groups []Group) [][]key.Binding {
	out := make([][]key.Binding, len(groups))
	for i, g := range groups {
		out[i] = g.Bindings
	}
	return out
}

// moveGroup is the group of the keys that move, shared by both screens.
func moveGroup(l ListKeyMap, more ...key.Binding) Group {
	return Group{"Move", append(l.ShortHelp(), more...)}
}
