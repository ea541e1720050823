package theme

import (
	"reflect"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

// each calls fn for every named style.
func each(s Styles, fn func(name string, st lipgloss.Style)) {
	v := reflect.ValueOf(s)
	for i := 0; i < v.NumField(); i++ {
		fn(v.Type().Field(i).Name, v.Field(i).Interface().(lipgloss.Style))
	}
}

func TestNoColorHasNoColours(t *testing.T) {
	each(New(true, true).Styles, func(name string, st lipgloss.Style) {
		out := st.Render("x")
		if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
			t.Errorf("%s has a colour in NO_COLOR: %q", name, out)
		}
	})
}

func TestMeaningfulStylesDiffer(t *testing.T) {
	for _, th := range []Theme{New(true, false), New(false, false), New(true, true)} {
		s := th.Styles
		pairs := [][2]lipgloss.Style{{s.AuthPass, s.AuthFail}, {s.Selected, s.Normal}, {s.Problem, s.Normal}, {s.Unread, s.Normal}, {s.TabActive, s.TabInactive},
			{s.HookEnabled, s.HookDisabled}, {s.SignatureValid, s.SignatureInvalid}, {s.SignatureValid, s.SignatureStale}, {s.SignatureInvalid, s.SignatureStale}}
		for i, p := range pairs {
			if p[0].Render("x") == p[1].Render("x") {
				t.Errorf("theme dark=%v nocolor=%v: pair %d renders the same", th.Dark, th.NoColor, i)
			}
		}
	}
}

func TestDarkAndLightDiffer(t *testing.T) {
	if New(true, false).Styles.Normal.Render("x") == New(false, false).Styles.Normal.Render("x") {
		t.Fatal("dark and light text look the same")
	}
}

// TestTextInputCursorReadsWithoutColour checks that the text field's
// cursor has the selection colour, and none without colours (it is then
// drawn in reverse video only).
func TestTextInputCursorReadsWithoutColour(t *testing.T) {
	if New(true, false).TextInput().Cursor.Color == nil {
		t.Error("the coloured theme's cursor has no colour")
	}
	if c := New(true, true).TextInput().Cursor.Color; c != nil {
		t.Errorf("the colourless theme's cursor has the colour %v", c)
	}
}
