package tui

import (
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"sandview/model"
)

// field is a one-line text input: the small editor behind forms, prompts
// and the filter.
type field struct {
	value []rune
	pos   int
}

func newField(value string) field {
	r := []rune(model.SanitizeLine(value))
	return field{value: r, pos: len(r)}
}

// String returns the text.
func (f *field) String() string { return string(f.value) }

// insert adds text at the cursor; control characters are dropped.
func (f *field) insert(s string) {
	var ins []rune
	for _, r := range model.SanitizeLine(s) {
		if unicode.IsPrint(r) || r == ' ' {
			ins = append(ins, r)
		}
	}
	if len(ins) == 0 {
		return
	}
	v := make([]rune, 0, len(f.value)+len(ins))
	v = append(v, f.value[:f.pos]...)
	v = append(v, ins...)
	v = append(v, f.value[f.pos:]...)
	f.value = v
	f.pos += len(ins)
}

// handleKey edits the field and reports whether the key was used.
func (f *field) handleKey(sh *shared, msg tea.KeyPressMsg) bool {
	k := sh.edit
	switch {
	case key.Matches(msg, k.Left):
		f.pos = max(f.pos-1, 0)
	case key.Matches(msg, k.Right):
		f.pos = min(f.pos+1, len(f.value))
	case key.Matches(msg, k.Home):
		f.pos = 0
	case key.Matches(msg, k.End):
		f.pos = len(f.value)
	case key.Matches(msg, k.Backspace):
		if f.pos > 0 {
			f.value = append(f.value[:f.pos-1:f.pos-1], f.value[f.pos:]...)
			f.pos--
		}
	case key.Matches(msg, k.Delete):
		if f.pos < len(f.value) {
			f.value = append(f.value[:f.pos:f.pos], f.value[f.pos+1:]...)
		}
	case key.Matches(msg, k.DeleteToStart):
		f.value = append([]rune{}, f.value[f.pos:]...)
		f.pos = 0
	case key.Matches(msg, k.DeleteWord):
		start := f.pos
		for start > 0 && f.value[start-1] == ' ' {
			start--
		}
		for start > 0 && f.value[start-1] != ' ' {
			start--
		}
		f.value = append(f.value[:start:start], f.value[f.pos:]...)
		f.pos = start
	case msg.Text != "" && msg.Mod&(tea.ModCtrl|tea.ModAlt) == 0:
		f.insert(msg.Text)
	default:
		return false
	}
	return true
}

// view renders the text with a cursor cell when focused, scrolled so the
// cursor stays within width cells.
func (f *field) view(sh *shared, focused bool, width int) string {
	st := sh.styles()
	text := string(f.value)
	if !focused {
		return st.Value.Render(ansi.Truncate(text, width, "…"))
	}
	before, at, after := string(f.value[:f.pos]), " ", ""
	if f.pos < len(f.value) {
		at, after = string(f.value[f.pos]), string(f.value[f.pos+1:])
	}
	// Keep the cursor visible: drop text from the left when too long.
	for ansi.StringWidth(before)+1 > width && before != "" {
		_, size := utf8.DecodeRuneInString(before)
		before = before[size:]
	}
	rest := width - ansi.StringWidth(before) - ansi.StringWidth(at)
	if rest < 0 {
		rest = 0
	}
	return st.Value.Render(before) + st.Selected.Render(at) + st.Value.Render(ansi.Truncate(after, rest, "…"))
}
