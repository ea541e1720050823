package tuitest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/theme"
	"sandview/tui/ui"
)

// Context returns a context in the dark or light theme whose clock stands
// at Now and whose timers are off.
func Context(dark bool) *ui.Context {
	ctx := ui.NewContext(theme.New(dark, false), func() time.Time { return Now() })
	ctx.Tick = NoTick
	return ctx
}

// NoTick schedules nothing: timers are off in tests.
func NoTick(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }

// Driver sends messages to a model and runs the commands they return to
// completion, feeding their messages back. Messages of the tea package
// (quit, clipboard, terminal requests) are collected instead of fed.
type Driver struct {
	T      testing.TB
	Update func(tea.Msg) tea.Cmd
}

// ScreenDriver drives a screen as the program would: keys go to the open
// dialog first, status messages and prompt results to the context.
func ScreenDriver(t testing.TB, ctx *ui.Context, s ui.Screen) Driver {
	return Driver{T: t, Update: func(msg tea.Msg) tea.Cmd {
		switch msg := msg.(type) {
		case tea.KeyPressMsg:
			if cmd, ok := ctx.HandleDialogKey(msg); ok {
				return cmd
			}
			cmd, _ := s.HandleKey(msg)
			return cmd
		case tea.PasteMsg:
			if !ctx.PasteToDialog(msg.Content) {
				s.Paste(msg.Content)
			}
			return nil
		case tea.MouseClickMsg, tea.MouseWheelMsg:
			return s.HandleMouse(msg.(tea.MouseMsg))
		}
		if ctx.Update(msg) {
			return nil
		}
		cmd, _ := s.Update(msg)
		return cmd
	}}
}

// Send delivers msg and runs what it starts; it returns the messages that
// went by.
func (d Driver) Send(msg tea.Msg) []tea.Msg {
	d.T.Helper()
	return d.run(d.Update(msg), 0)
}

// Run runs cmd to completion.
func (d Driver) Run(cmd tea.Cmd) []tea.Msg {
	d.T.Helper()
	return d.run(cmd, 0)
}

func (d Driver) run(cmd tea.Cmd, depth int) []tea.Msg {
	d.T.Helper()
	if cmd == nil {
		return nil
	}
	if depth > 20 {
		d.T.Fatal("command chain too deep")
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, d.run(c, depth+1)...)
		}
		return out
	}
	if strings.HasPrefix(fmt.Sprintf("%T", msg), "tea.") {
		return []tea.Msg{msg}
	}
	return append([]tea.Msg{msg}, d.run(d.Update(msg), depth+1)...)
}

// Press sends keys one after another.
func (d Driver) Press(names ...string) []tea.Msg {
	d.T.Helper()
	var out []tea.Msg
	for _, n := range names {
		out = append(out, d.Send(Key(n))...)
	}
	return out
}

// Type types each rune of s.
func (d Driver) Type(s string) {
	d.T.Helper()
	for _, r := range s {
		d.Send(tea.KeyPressMsg(tea.Key{Code: r, Text: string(r)}))
	}
}

// Ctrl presses ctrl and r.
func (d Driver) Ctrl(r rune) {
	d.T.Helper()
	d.Send(tea.KeyPressMsg(tea.Key{Code: r, Mod: tea.ModCtrl}))
}

// Key builds a key press from its name ("down", "enter", "j", "ctrl+c").
func Key(name string) tea.KeyPressMsg {
	special := map[string]tea.Key{
		"up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown}, "enter": {Code: tea.KeyEnter},
		"esc": {Code: tea.KeyEscape}, "tab": {Code: tea.KeyTab}, "shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"backspace": {Code: tea.KeyBackspace}, "pgdown": {Code: tea.KeyPgDown}, "pgup": {Code: tea.KeyPgUp},
		"home": {Code: tea.KeyHome}, "end": {Code: tea.KeyEnd}, "space": {Code: tea.KeySpace, Text: " "},
		"ctrl+c": {Code: 'c', Mod: tea.ModCtrl}, "left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight},
		"ctrl+u": {Code: 'u', Mod: tea.ModCtrl},
	}
	if k, ok := special[name]; ok {
		return tea.KeyPressMsg(k)
	}
	r := []rune(name)
	return tea.KeyPressMsg(tea.Key{Code: r[0], Text: name})
}

// Contains reports whether msgs holds one that prints as text (a copy to
// the clipboard prints as what it copies).
func Contains(msgs []tea.Msg, text string) bool {
	for _, msg := range msgs {
		if fmt.Sprint(msg) == text {
			return true
		}
	}
	return false
}

// Quits reports whether msgs holds a quit.
func Quits(msgs []tea.Msg) bool {
	for _, msg := range msgs {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}
