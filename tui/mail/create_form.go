package mail

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/keys"
	"sandview/model"
	"sandview/tui/ui"
)

// createForm is the dialog asking for the options of a new inbox.
type createForm struct {
	ctx        *ui.Context
	keys       keys.FormKeyMap
	ttl        ui.TextField
	address    ui.TextField
	encryption ui.Choice
	emailAuth  ui.Choice
	focus      int
	err        string
	busy       bool
	submit     func(client.CreateInboxOptions) tea.Cmd
}

const formFields = 4

func newCreateForm(ctx *ui.Context, submit func(client.CreateInboxOptions) tea.Cmd) *createForm {
	return &createForm{
		ctx:        ctx,
		keys:       keys.DefaultForm(),
		ttl:        ui.NewTextField(ctx.Edit, "1h"),
		address:    ui.NewTextField(ctx.Edit, ""),
		encryption: ui.Choice{Options: []string{"server default", "encrypted", "plain"}},
		emailAuth:  ui.Choice{Options: []string{"server default", "on", "off"}},
		submit:     submit,
	}
}

// input validates the form.
func (f *createForm) input() (client.CreateInboxOptions, error) {
	ttl, err := model.ParseTTL(f.ttl.Value())
	if err != nil {
		return client.CreateInboxOptions{}, err
	}
	in := client.CreateInboxOptions{TTL: ttl, EmailAddress: strings.TrimSpace(f.address.Value())}
	if len(in.EmailAddress) > 254 {
		return client.CreateInboxOptions{}, fmt.Errorf("address: at most 254 characters")
	}
	switch f.encryption.Index {
	case 1:
		in.Encryption = model.EncryptionEncrypted
	case 2:
		in.Encryption = model.EncryptionPlain
	}
	switch f.emailAuth.Index {
	case 1:
		on := true
		in.EmailAuth = &on
	case 2:
		off := false
		in.EmailAuth = &off
	}
	return in, nil
}

// HandleKey edits the focused field, moves between fields, submits or
// cancels.
func (f *createForm) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
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
		f.ttl.HandleKey(msg)
	case 1:
		f.address.HandleKey(msg)
	case 2, 3:
		c := &f.encryption
		if f.focus == 3 {
			c = &f.emailAuth
		}
		switch {
		case key.Matches(msg, f.keys.Toggle):
			c.Next(1)
		case key.Matches(msg, f.keys.Back):
			c.Next(-1)
		}
	}
	return nil, false
}

// Paste inserts pasted text into the focused text field.
func (f *createForm) Paste(text string) {
	switch f.focus {
	case 0:
		f.ttl.Insert(text)
	case 1:
		f.address.Insert(text)
	}
}

// failed shows an error from the service and lets the user retry.
func (f *createForm) failed(err error) {
	f.busy = false
	f.err = err.Error()
}

// View draws the form.
func (f *createForm) View(width, _ int) string {
	width = min(width, ui.DialogWidth)
	st := f.ctx.Styles()
	inner := max(width-4, 10)
	label := func(i int, name string) string {
		if f.focus == i {
			return st.FieldFocused.Render(fmt.Sprintf("› %-14s", name))
		}
		return st.Label.Render(fmt.Sprintf("  %-14s", name))
	}
	fieldW := max(inner-17, 5)
	lines := []string{
		st.DialogTitle.Render("New inbox"),
		"",
		label(0, "TTL") + f.ttl.View(f.ctx, f.focus == 0, fieldW),
		label(1, "Address") + f.address.View(f.ctx, f.focus == 1, fieldW),
		st.Muted.Render(strings.Repeat(" ", 16) + "empty = random; a name, domain or address"),
		label(2, "Encryption") + f.encryption.View(st, ui.Verbatim, " ", fieldW),
		label(3, "Email auth") + f.emailAuth.View(st, ui.Verbatim, " ", fieldW),
		"",
	}
	switch {
	case f.busy:
		lines = append(lines, st.Muted.Render("Creating the inbox…"))
	case f.err != "":
		lines = append(lines, ui.WrapStyled(st.FieldError.Render, "✗ "+f.err, inner)...)
	default:
		lines = append(lines, st.Muted.Render(fmt.Sprintf("%s creates · %s cancels", ui.KeyName(f.keys.Submit), ui.KeyName(f.keys.Cancel))))
	}
	return ui.Box(f.ctx, lines, width)
}

// ShortHelp lists the form's keys.
func (f *createForm) ShortHelp() []key.Binding { return f.keys.ShortHelp() }

// FullHelp lists the form's keys.
func (f *createForm) FullHelp() [][]key.Binding { return f.keys.FullHelp() }
