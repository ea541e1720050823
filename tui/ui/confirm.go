package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
)

// Confirm asks a yes/no question before a destructive action.
type Confirm struct {
	ctx      *Context
	keys     keys.ConfirmKeyMap
	question string
	yes      func() tea.Cmd
}

// NewConfirm returns a confirmation that runs yes when the answer is yes.
func NewConfirm(ctx *Context, question string, yes func() tea.Cmd) *Confirm {
	return &Confirm{ctx: ctx, keys: keys.DefaultConfirm(), question: question, yes: yes}
}

// HandleKey answers the question.
func (c *Confirm) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, c.keys.Yes):
		return c.yes(), true
	case key.Matches(msg, c.keys.No):
		return nil, true
	}
	return nil, false
}

// Paste does nothing: there is nothing to type.
func (c *Confirm) Paste(string) {}

// View draws the question and its keys.
func (c *Confirm) View(width, _ int) string {
	width = min(width, DialogWidth)
	st := c.ctx.Styles()
	lines := []string{st.DialogTitle.Render("Confirm"), ""}
	lines = append(lines, WrapStyled(st.Value.Render, c.question, max(width-4, 10))...)
	answer := func(b key.Binding) string {
		return st.FieldFocused.Render(KeyName(b)) + st.Muted.Render(" "+b.Help().Desc)
	}
	lines = append(lines, "", answer(c.keys.Yes)+st.Muted.Render(" · ")+answer(c.keys.No))
	return Box(c.ctx, lines, width)
}

// ShortHelp lists the answers.
func (c *Confirm) ShortHelp() []key.Binding { return c.keys.ShortHelp() }

// FullHelp lists the answers.
func (c *Confirm) FullHelp() [][]key.Binding { return c.keys.FullHelp() }
