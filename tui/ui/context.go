package ui

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/keys"
	"sandview/model/termtext"
	"sandview/theme"
)

// Context is what every component shares: the theme, the key maps, the
// clock, the stack of open dialogs and the transient status message. The
// root model owns it; components hold a pointer and read it when they draw,
// so a theme change or a tick reaches all of them at once.
type Context struct {
	Theme theme.Theme
	Keys  keys.KeyMap
	Edit  keys.EditKeyMap
	// Clock reads the time; Now is its reading at the last tick, so that one
	// frame shows one time.
	Clock func() time.Time
	Now   time.Time
	// Tick schedules a timer message (tea.Tick; tests switch timers off).
	Tick func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd
	// Graphics is how the terminal draws pictures (the reader's Rendered
	// tab).
	Graphics Graphics

	status  Status
	log     []LogEntry // the last LogSize status messages, oldest first
	dialogs []Dialog
}

// NewContext returns a context with the default key maps and real timers.
func NewContext(th theme.Theme, clock func() time.Time) *Context {
	return &Context{Theme: th, Keys: keys.Default(), Edit: keys.DefaultEdit(), Clock: clock, Now: clock(), Tick: tea.Tick}
}

// Styles is a shorthand for the theme's named styles.
func (c *Context) Styles() *theme.Styles { return &c.Theme.Styles }

// Advance reads the clock and drops a status message whose time is up.
func (c *Context) Advance() {
	c.Now = c.Clock()
	if c.status.Text != "" && !c.Now.Before(c.status.Expires) {
		c.status = Status{}
	}
}

// Open puts a dialog on top of the others.
func (c *Context) Open(d Dialog) { c.dialogs = append(c.dialogs, d) }

// Close removes a dialog wherever it is in the stack.
func (c *Context) Close(d Dialog) {
	c.dialogs = slices.DeleteFunc(c.dialogs, func(o Dialog) bool { return o == d })
}

// Dialog is the dialog on top, or nil.
func (c *Context) Dialog() Dialog {
	if len(c.dialogs) == 0 {
		return nil
	}
	return c.dialogs[len(c.dialogs)-1]
}

// HandleDialogKey gives a key to the dialog on top, closing it when it is
// done; handled is false when no dialog is open.
func (c *Context) HandleDialogKey(msg tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	d := c.Dialog()
	if d == nil {
		return nil, false
	}
	cmd, done := d.HandleKey(msg)
	if done {
		c.Close(d)
	}
	return cmd, true
}

// PasteToDialog gives pasted text to the dialog on top; it reports whether
// a dialog was open.
func (c *Context) PasteToDialog(text string) bool {
	d := c.Dialog()
	if d != nil {
		d.Paste(text)
	}
	return d != nil
}

// Update applies the messages every screen may send: status messages and
// the end of a prompt's work. ok is false for other messages.
func (c *Context) Update(msg tea.Msg) (ok bool) {
	switch msg := msg.(type) {
	case StatusMsg:
		c.Flash(msg.Text, msg.Level)
	case PromptDoneMsg:
		p, isPrompt := c.Dialog().(*Prompt)
		if msg.Err != nil {
			if isPrompt {
				p.Failed(msg.Err)
			} else {
				c.Flash(ErrorText(msg.Err), LevelError)
			}
			return true
		}
		if isPrompt {
			c.Close(p)
		}
		c.Flash(msg.Status, LevelSuccess)
	default:
		return false
	}
	return true
}

// Level says how a status message is shown.
type Level int

// Status message levels.
const (
	LevelInfo Level = iota
	LevelSuccess
	LevelWarn
	LevelError
)

// StatusTTL is how long a status message stays; errors stay twice as long.
const StatusTTL = 6 * time.Second

// Status is the transient message of the status bar.
type Status struct {
	Text    string
	Level   Level
	Expires time.Time
}

// StatusMsg asks for a status message (the result of background work).
type StatusMsg struct {
	Text  string
	Level Level
}

// Flash shows a status message, sanitized to one line, and keeps it in
// the log.
func (c *Context) Flash(text string, level Level) {
	ttl := StatusTTL
	if level == LevelError {
		ttl *= 2
	}
	text = termtext.SanitizeLine(text)
	c.status = Status{Text: text, Level: level, Expires: c.Now.Add(ttl)}
	c.Log(text, level)
}

// Log keeps a message in the log without showing it in the status bar
// (the status bar shows a state, such as the connection, already).
func (c *Context) Log(text string, level Level) {
	if len(c.log) == LogSize {
		c.log = append(c.log[:0], c.log[1:]...)
	}
	c.log = append(c.log, LogEntry{At: c.Clock(), Text: termtext.SanitizeLine(text), Level: level})
}

// Status is the status message shown now ("" text when none).
func (c *Context) Status() Status { return c.status }
