package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"sandview/keys"
	"sandview/model"
)

// overlay is a modal dialog that has the keyboard while it is open.
type overlay interface {
	// handleKey reacts to a key; it returns done=true when the dialog
	// closes.
	handleKey(sh *shared, msg tea.KeyPressMsg) (cmd tea.Cmd, done bool)
	paste(text string)
	view(sh *shared, width int) string
	helpKeys() help.KeyMap
}

// choice is a small set of options cycled with space or the arrows.
type choice struct {
	options []string
	index   int
}

func (c *choice) next(delta int) {
	n := len(c.options)
	c.index = ((c.index+delta)%n + n) % n
}

// createForm asks for the options of a new inbox.
type createForm struct {
	keys       keys.FormKeyMap
	ttl        field
	address    field
	encryption choice
	emailAuth  choice
	focus      int
	err        string
	busy       bool
	submit     func(createInboxInput) tea.Cmd
}

const formFields = 4

func newCreateForm(submit func(createInboxInput) tea.Cmd) *createForm {
	return &createForm{
		keys:       keys.DefaultForm(),
		ttl:        newField("1h"),
		encryption: choice{options: []string{"server default", "encrypted", "plain"}},
		emailAuth:  choice{options: []string{"server default", "on", "off"}},
		submit:     submit,
	}
}

// input validates the form.
func (f *createForm) input() (createInboxInput, error) {
	ttl, err := model.ParseTTL(f.ttl.String())
	if err != nil {
		return createInboxInput{}, err
	}
	in := createInboxInput{TTL: ttl, Address: strings.TrimSpace(f.address.String())}
	if len(in.Address) > 254 {
		return createInboxInput{}, fmt.Errorf("address: at most 254 characters")
	}
	switch f.encryption.index {
	case 1:
		in.Encryption = model.EncryptionEncrypted
	case 2:
		in.Encryption = model.EncryptionPlain
	}
	switch f.emailAuth.index {
	case 1:
		on := true
		in.EmailAuth = &on
	case 2:
		off := false
		in.EmailAuth = &off
	}
	return in, nil
}

func (f *createForm) handleKey(sh *shared, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if f.busy {
		return nil, key.Matches(msg, f.keys.Cancel)
	}
	switch {
	case key.Matches(msg, f.keys.Cancel):
		return nil, true
	case key.Matches(msg, f.keys.Submit):
		in, err := f.input()
		if err != nil {
			f.err = err.Error()
			return nil, false
		}
		f.err, f.busy = "", true
		return f.submit(in), false
	case key.Matches(msg, f.keys.Next):
		f.focus = (f.focus + 1) % formFields
		return nil, false
	case key.Matches(msg, f.keys.Prev):
		f.focus = (f.focus + formFields - 1) % formFields
		return nil, false
	}
	switch f.focus {
	case 0:
		f.ttl.handleKey(sh, msg)
	case 1:
		f.address.handleKey(sh, msg)
	case 2, 3:
		c := &f.encryption
		if f.focus == 3 {
			c = &f.emailAuth
		}
		switch {
		case key.Matches(msg, f.keys.Toggle):
			c.next(1)
		case key.Matches(msg, f.keys.Back):
			c.next(-1)
		}
	}
	return nil, false
}

func (f *createForm) paste(text string) {
	switch f.focus {
	case 0:
		f.ttl.insert(text)
	case 1:
		f.address.insert(text)
	}
}

// failed shows an error from the service and lets the user retry.
func (f *createForm) failed(err error) {
	f.busy = false
	f.err = err.Error()
}

func (f *createForm) view(sh *shared, width int) string {
	width = min(width, dialogWidth)
	st := sh.styles()
	inner := max(width-4, 10)
	label := func(i int, name string) string {
		if f.focus == i {
			return st.FieldFocused.Render(fmt.Sprintf("› %-14s", name))
		}
		return st.Label.Render(fmt.Sprintf("  %-14s", name))
	}
	choiceView := func(i int, c choice) string {
		var parts []string
		for j, o := range c.options {
			if j == c.index {
				parts = append(parts, st.ChoiceActive.Render(" "+o+" "))
			} else {
				parts = append(parts, st.Choice.Render(" "+o+" "))
			}
		}
		return strings.Join(parts, " ")
	}
	fieldW := max(inner-17, 5)
	lines := []string{
		st.DialogTitle.Render("New inbox"),
		"",
		label(0, "TTL") + f.ttl.view(sh, f.focus == 0, fieldW),
		label(1, "Address") + f.address.view(sh, f.focus == 1, fieldW),
		st.Muted.Render(strings.Repeat(" ", 16) + "empty = random; a domain or a full address"),
		label(2, "Encryption") + choiceView(2, f.encryption),
		label(3, "Email auth") + choiceView(3, f.emailAuth),
		"",
	}
	switch {
	case f.busy:
		lines = append(lines, st.Muted.Render("Creating the inbox…"))
	case f.err != "":
		lines = append(lines, wrapStyled(st.FieldError.Render, "✗ "+f.err, inner)...)
	default:
		lines = append(lines, st.Muted.Render("enter creates · esc cancels"))
	}
	return dialog(sh, lines, width)
}

func (f *createForm) helpKeys() help.KeyMap { return f.keys }

// prompt asks for one line of text, such as a path.
type prompt struct {
	keys   keys.PromptKeyMap
	title  string
	hint   string
	input  field
	err    string
	busy   bool
	accept func(string) tea.Cmd
}

func newPrompt(title, hint, value string, accept func(string) tea.Cmd) *prompt {
	return &prompt{keys: keys.DefaultPrompt(), title: title, hint: hint, input: newField(value), accept: accept}
}

func (p *prompt) handleKey(sh *shared, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, p.keys.Cancel):
		return nil, true
	case p.busy:
		return nil, false
	case key.Matches(msg, p.keys.Accept):
		value := strings.TrimSpace(p.input.String())
		if value == "" {
			p.err = "enter a path"
			return nil, false
		}
		p.err, p.busy = "", true
		return p.accept(value), false
	}
	p.input.handleKey(sh, msg)
	return nil, false
}

func (p *prompt) paste(text string) { p.input.insert(text) }

// failed shows an error and keeps what was typed.
func (p *prompt) failed(err error) {
	p.busy = false
	p.err = err.Error()
}

func (p *prompt) view(sh *shared, width int) string {
	width = min(width, dialogWidth)
	st := sh.styles()
	inner := max(width-4, 10)
	lines := []string{st.DialogTitle.Render(p.title), ""}
	lines = append(lines, wrapStyled(st.Muted.Render, p.hint, inner)...)
	lines = append(lines, st.FieldFocused.Render("› ")+p.input.view(sh, !p.busy, inner-2), "")
	switch {
	case p.busy:
		lines = append(lines, st.Muted.Render("Working…"))
	case p.err != "":
		lines = append(lines, wrapStyled(st.FieldError.Render, "✗ "+p.err, inner)...)
	default:
		lines = append(lines, st.Muted.Render("enter accepts · esc cancels"))
	}
	return dialog(sh, lines, width)
}

func (p *prompt) helpKeys() help.KeyMap { return p.keys }

// confirm asks a yes/no question before a destructive action.
type confirm struct {
	keys     keys.ConfirmKeyMap
	question string
	yes      func() tea.Cmd
}

func newConfirm(question string, yes func() tea.Cmd) *confirm {
	return &confirm{keys: keys.DefaultConfirm(), question: question, yes: yes}
}

func (c *confirm) handleKey(_ *shared, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, c.keys.Yes):
		return c.yes(), true
	case key.Matches(msg, c.keys.No):
		return nil, true
	}
	return nil, false
}

func (c *confirm) paste(string) {}

func (c *confirm) view(sh *shared, width int) string {
	width = min(width, dialogWidth)
	st := sh.styles()
	lines := []string{st.DialogTitle.Render("Confirm"), ""}
	lines = append(lines, wrapStyled(st.Value.Render, c.question, max(width-4, 10))...)
	lines = append(lines, "", st.FieldFocused.Render("y")+st.Muted.Render(" yes · ")+st.FieldFocused.Render("n")+st.Muted.Render(" no"))
	return dialog(sh, lines, width)
}

func (c *confirm) helpKeys() help.KeyMap { return c.keys }

// helpScreen shows the full help of a key map, with notes under it.
type helpScreen struct {
	title string
	keys  help.KeyMap
	notes []string
	help  help.Model
}

func (h *helpScreen) handleKey(*shared, tea.KeyPressMsg) (tea.Cmd, bool) {
	return nil, true // any key closes the help
}

func (h *helpScreen) paste(string) {}

func (h *helpScreen) view(sh *shared, width int) string {
	st := sh.styles()
	hm := h.help
	hm.SetWidth(width - 4)
	full := hm.FullHelpView(h.keys.FullHelp())
	width = min(width, max(lipgloss.Width(full), 62)+4)
	lines := []string{st.DialogTitle.Render(h.title), ""}
	lines = append(lines, strings.Split(full, "\n")...)
	lines = append(lines, "")
	for _, note := range append(h.notes, "Press any key to close.") {
		lines = append(lines, st.Muted.Render(note))
	}
	return dialog(sh, lines, width)
}

func (h *helpScreen) helpKeys() help.KeyMap { return h.keys }

// dialogWidth is the widest a form, prompt or confirmation gets.
const dialogWidth = 76

// dialog draws a bordered box of the given outer width.
func dialog(sh *shared, lines []string, width int) string {
	inner := max(width-4, 1)
	fitted := make([]string, len(lines))
	for i, l := range lines {
		fitted[i] = fit(l, inner)
	}
	return sh.styles().Dialog.Width(width).Render(strings.Join(fitted, "\n"))
}

// wrapStyled wraps text to width and styles each line.
func wrapStyled(style func(...string) string, text string, width int) []string {
	lines := wrap(text, width)
	for i, l := range lines {
		lines[i] = style(l)
	}
	return lines
}
