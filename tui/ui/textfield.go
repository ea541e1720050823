package ui

import (
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"sandview/keys"
	"sandview/model/termtext"
)

// TextField is a one-line text input: bubbles' textinput with the line
// editing keys of the keys package and the theme's styles. What is typed
// or pasted is sanitized first, so the field never holds a control or bidi
// character.
type TextField struct {
	input textinput.Model
	edit  keys.EditKeyMap
}

// NewTextField returns a field holding value, the cursor at its end.
func NewTextField(edit keys.EditKeyMap, value string) TextField {
	in := textinput.New()
	in.Prompt = ""
	in.KeyMap = edit.TextInput()
	in.Focus() // always: whether it looks focused is decided when drawn
	in.SetValue(printable(value))
	in.CursorEnd()
	return TextField{input: in, edit: edit}
}

// Value is the text.
func (f *TextField) Value() string { return f.input.Value() }

// HandleKey edits the field; it reports whether the key was an edit or a
// character typed.
func (f *TextField) HandleKey(msg tea.KeyPressMsg) bool {
	k := f.edit
	edit := key.Matches(msg, k.Left, k.Right, k.Home, k.End, k.Backspace, k.Delete, k.DeleteToStart, k.DeleteWord)
	typed := !edit && msg.Text != "" && msg.Mod&(tea.ModCtrl|tea.ModAlt) == 0
	if !edit && !typed {
		return false
	}
	if typed {
		msg.Text = printable(msg.Text)
		if msg.Text == "" {
			return true
		}
	}
	f.input, _ = f.input.Update(msg)
	return true
}

// Insert adds pasted text at the cursor.
func (f *TextField) Insert(text string) {
	if text = printable(text); text != "" {
		f.input, _ = f.input.Update(tea.PasteMsg{Content: text})
	}
}

// View draws the field in exactly width cells: with its cursor, scrolled
// to keep the cursor in sight, when focused; truncated otherwise.
func (f *TextField) View(ctx *Context, focused bool, width int) string {
	if width <= 0 {
		return ""
	}
	if !focused {
		return Fit(ctx.Styles().Value.Render(ansi.Truncate(f.input.Value(), width, "…")), width)
	}
	in := f.input
	in.SetStyles(ctx.Theme.TextInput())
	in.SetWidth(max(width-1, 1)) // one cell for the cursor
	in.SetCursor(in.Position())  // re-measure the scroll for this width
	return Fit(in.View(), width)
}

// printable keeps the printable characters of the sanitized text.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) || r == ' ' {
			return r
		}
		return -1
	}, termtext.SanitizeLine(s))
}
