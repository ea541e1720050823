package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
)

// PromptDoneMsg ends the work a prompt started: an error keeps the prompt
// open with what was typed; success closes it and shows Status.
type PromptDoneMsg struct {
	Status string
	Err    error
}

// Prompt asks for one line of text, such as a path. Its work ends with a
// PromptDoneMsg.
type Prompt struct {
	ctx    *Context
	keys   keys.PromptKeyMap
	title  string
	hint   string
	input  TextField
	err    string
	busy   bool
	accept func(string) tea.Cmd
}

// NewPrompt returns a prompt holding value; accept starts the work with
// what was typed.
func NewPrompt(ctx *Context, title, hint, value string, accept func(string) tea.Cmd) *Prompt {
	return &Prompt{ctx: ctx, keys: keys.DefaultPrompt(), title: title, hint: hint, input: NewTextField(ctx.Edit, value), accept: accept}
}

// Value is what was typed.
func (p *Prompt) Value() string { return p.input.Value() }

// Err is the error shown, if any.
func (p *Prompt) Err() string { return p.err }

// HandleKey edits the text, accepts it or cancels.
func (p *Prompt) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, p.keys.Cancel):
		return nil, true
	case p.busy:
		return nil, false
	case key.Matches(msg, p.keys.Accept):
		value := strings.TrimSpace(p.input.Value())
		if value == "" {
			p.err = "enter a path"
			return nil, false
		}
		p.err, p.busy = "", true
		return p.accept(value), false
	}
	p.input.HandleKey(msg)
	return nil, false
}

// Paste inserts pasted text.
func (p *Prompt) Paste(text string) { p.input.Insert(text) }

// Failed shows an error and keeps what was typed.
func (p *Prompt) Failed(err error) {
	p.busy = false
	p.err = err.Error()
}

// View draws the prompt.
func (p *Prompt) View(width, _ int) string {
	width = min(width, DialogWidth)
	st := p.ctx.Styles()
	inner := max(width-4, 10)
	lines := []string{st.DialogTitle.Render(p.title), ""}
	lines = append(lines, WrapStyled(st.Muted.Render, p.hint, inner)...)
	lines = append(lines, st.FieldFocused.Render("› ")+p.input.View(p.ctx, !p.busy, inner-2), "")
	switch {
	case p.busy:
		lines = append(lines, st.Muted.Render("Working…"))
	case p.err != "":
		lines = append(lines, WrapStyled(st.FieldError.Render, "✗ "+p.err, inner)...)
	default:
		lines = append(lines, st.Muted.Render(fmt.Sprintf("%s accepts · %s cancels", KeyName(p.keys.Accept), KeyName(p.keys.Cancel))))
	}
	return Box(p.ctx, lines, width)
}

// ShortHelp lists the prompt's keys.
func (p *Prompt) ShortHelp() []key.Binding { return p.keys.ShortHelp() }

// FullHelp lists the prompt's keys.
func (p *Prompt) FullHelp() [][]key.Binding { return p.keys.FullHelp() }
