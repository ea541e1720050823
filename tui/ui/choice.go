package ui

import (
	"fmt"
	"strings"

	"sandview/model/termtext"
	"sandview/theme"
)

// Choice is a small set of options cycled with space or the arrows.
type Choice struct {
	Options []string
	Index   int
}

// Next moves the choice by delta options, wrapping around.
func (c *Choice) Next(delta int) {
	n := len(c.Options)
	c.Index = ((c.Index+delta)%n + n) % n
}

// Value is the chosen option.
func (c *Choice) Value() string { return c.Options[c.Index] }

// View draws every option, the chosen one highlighted and each labelled by
// label, separated by sep, when they fit in width; otherwise the chosen one
// between arrows (and its rank when that fits too).
func (c *Choice) View(st *theme.Styles, label func(string) string, sep string, width int) string {
	parts := make([]string, len(c.Options))
	for j, o := range c.Options {
		if j == c.Index {
			parts[j] = st.ChoiceActive.Render(" " + label(o) + " ")
		} else {
			parts[j] = st.Choice.Render(" " + label(o) + " ")
		}
	}
	if all := strings.Join(parts, sep); termtext.Width(all) <= width {
		return all
	}
	one := st.Choice.Render("◂") + st.ChoiceActive.Render(label(c.Value())) + st.Choice.Render("▸")
	if rank := st.Choice.Render(fmt.Sprintf(" %d/%d", c.Index+1, len(c.Options))); termtext.Width(one+rank) <= width {
		return one + rank
	}
	return one
}

// Verbatim is the label of an option that shows as it is.
func Verbatim(option string) string { return option }
