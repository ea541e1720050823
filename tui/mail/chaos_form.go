package mail

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/keys"
	"sandview/model"
	"sandview/tui/ui"
)

// chaosForm is the dialog of an inbox's chaos: each kind on or off with
// its main value, and how long it lasts. It opens while the config is
// fetched; a server with chaos switched off gets one line saying how to
// switch it on.
type chaosForm struct {
	ctx     *ui.Context
	keys    keys.ChaosFormKeyMap
	address string
	rows    []chaosRow
	focus   int
	// loading until the config came; off when the server has chaos
	// switched off.
	loading, off, busy bool
	current            model.ChaosConfig
	err                string
	submit             func(address string, cfg *model.ChaosConfig) tea.Cmd
}

// chaosRow is one line of the dialog: a kind (on, with a value unless
// it has none) or the duration (a value only).
type chaosRow struct {
	name, hint string
	on         bool
	toggle     bool // has an on/off switch
	value      *ui.TextField
}

// The rows of the chaos dialog, in order.
const (
	rowLatency = iota
	rowDrop
	rowError
	rowPermanent
	rowGreylist
	rowBlackhole
	rowFor
)

func newChaosForm(ctx *ui.Context, address string, submit func(string, *model.ChaosConfig) tea.Cmd) *chaosForm {
	field := func(v string) *ui.TextField {
		f := ui.NewTextField(ctx.Edit, v)
		return &f
	}
	return &chaosForm{ctx: ctx, keys: keys.DefaultChaosForm(), address: address, loading: true, submit: submit,
		rows: []chaosRow{
			{name: "Latency", hint: "2s, or 500ms-3s (0-60s)", toggle: true, value: field("500ms-3s")},
			{name: "Drop", hint: "probability 0-1", toggle: true, value: field("0.1")},
			{name: "Error 4xx", hint: "rate 0-1", toggle: true, value: field("0.3")},
			{name: " and 5xx", hint: "with Error: permanent too", toggle: true},
			{name: "Greylist", hint: "attempt that passes (1-100)", toggle: true, value: field("2")},
			{name: "Blackhole", hint: "250, keeps nothing", toggle: true},
			{name: "For", hint: "empty = until off (1s-168h)", value: field("10m")},
		}}
}

// loaded fills the dialog with the inbox's config, or says the server
// has chaos off.
func (f *chaosForm) loaded(cfg model.ChaosConfig, err error) {
	f.loading = false
	var disabled *client.ChaosDisabledError
	switch {
	case errors.As(err, &disabled):
		f.off = true
		return
	case err != nil:
		f.err = ui.ErrorText(err)
		return
	}
	f.current = cfg
	s := model.ChaosSettingsOf(cfg, f.ctx.Now)
	set := func(row int, on bool, v string) {
		f.rows[row].on = on
		if on && f.rows[row].value != nil {
			*f.rows[row].value = ui.NewTextField(f.ctx.Edit, v)
		}
	}
	set(rowLatency, s.Latency != "", s.Latency)
	set(rowDrop, s.Drop != "", s.Drop)
	set(rowError, s.Error != "", s.Error)
	set(rowPermanent, s.Permanent, "")
	set(rowGreylist, s.Greylist != "", s.Greylist)
	set(rowBlackhole, s.Blackhole, "")
	if cfg.ActiveAt(f.ctx.Now) {
		*f.rows[rowFor].value = ui.NewTextField(f.ctx.Edit, s.For)
	}
}

// settings are what the dialog holds, as typed.
func (f *chaosForm) settings() model.ChaosSettings {
	val := func(row int) string {
		if !f.rows[row].on && f.rows[row].toggle {
			return ""
		}
		return strings.TrimSpace(f.rows[row].value.Value())
	}
	return model.ChaosSettings{Latency: val(rowLatency), Drop: val(rowDrop), Error: val(rowError),
		Permanent: f.rows[rowPermanent].on && f.rows[rowError].on, Greylist: val(rowGreylist),
		Blackhole: f.rows[rowBlackhole].on, For: val(rowFor),
		Reset: f.current.ConnectionDrop != nil && !f.current.ConnectionDrop.Graceful && f.rows[rowDrop].on}
}

// HandleKey moves between the rows, switches a kind, edits a value,
// applies or cancels. Every kind off applies as chaos off.
func (f *chaosForm) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if key.Matches(msg, f.keys.Cancel) {
		return nil, true
	}
	if f.busy || f.loading || f.off {
		return nil, false
	}
	n := len(f.rows)
	row := &f.rows[f.focus]
	switch {
	case key.Matches(msg, f.keys.Submit):
		return f.apply(), false
	case key.Matches(msg, f.keys.Next):
		f.focus = (f.focus + 1) % n
	case key.Matches(msg, f.keys.Prev):
		f.focus = (f.focus + n - 1) % n
	case key.Matches(msg, f.keys.Toggle) && row.toggle:
		row.on = !row.on
	case row.value != nil:
		before := row.value.Value()
		if row.value.HandleKey(msg) && row.toggle && row.value.Value() != before {
			row.on = true // typing a value switches its kind on
		}
	}
	return nil, false
}

// apply sends the settings: a config, or chaos off when no kind is on.
func (f *chaosForm) apply() tea.Cmd {
	s := f.settings()
	if s.Latency == "" && s.Drop == "" && s.Error == "" && s.Greylist == "" && !s.Blackhole {
		f.err, f.busy = "", true
		return f.submit(f.address, nil)
	}
	cfg, err := s.Config(f.ctx.Clock()) // the expiry counts from this key
	if err != nil {
		f.err = err.Error()
		return nil
	}
	f.err, f.busy = "", true
	return f.submit(f.address, &cfg)
}

// Paste inserts pasted text into the focused value.
func (f *chaosForm) Paste(text string) {
	if v := f.rows[f.focus].value; v != nil && !f.loading && !f.off {
		v.Insert(text)
	}
}

// failed shows an error from the service and lets the user retry.
func (f *chaosForm) failed(err error) {
	f.busy = false
	f.err = ui.ErrorText(err)
}

// View draws the dialog.
func (f *chaosForm) View(width, _ int) string {
	width = min(width, ui.DialogWidth)
	st := f.ctx.Styles()
	inner := max(width-4, 10)
	lines := []string{st.DialogTitle.Render("Chaos on " + f.address)}
	if !f.off && !f.loading {
		lines = append(lines, st.Muted.Render(ui.Fit(chaosState(f.current, f.ctx.Now), inner)))
	}
	lines = append(lines, "")
	switch {
	case f.loading:
		lines = append(lines, st.Muted.Render("Reading the inbox's chaos…"))
	case f.off:
		lines = append(lines, ui.WrapStyled(st.FieldError.Render,
			"Chaos is off on this server: start it with `sandview serve --chaos`.", inner)...)
	default:
		lines = append(lines, f.rowLines(inner)...)
	}
	lines = append(lines, "")
	switch {
	case f.busy:
		lines = append(lines, st.Muted.Render("Applying…"))
	case f.err != "":
		lines = append(lines, ui.WrapStyled(st.FieldError.Render, "✗ "+f.err, inner)...)
	case f.off || f.loading:
		lines = append(lines, st.Muted.Render(ui.KeyName(f.keys.Cancel)+" closes"))
	default:
		lines = append(lines, st.Muted.Render(ui.Fit(fmt.Sprintf("%s on/off · %s applies · %s cancels",
			ui.KeyName(f.keys.Toggle), ui.KeyName(f.keys.Submit), ui.KeyName(f.keys.Cancel)), inner)))
	}
	return ui.Box(f.ctx, lines, width)
}

// rowLines draws the rows: a mark, the switch, the name, the value and
// its hint.
func (f *chaosForm) rowLines(inner int) []string {
	st := f.ctx.Styles()
	var lines []string
	valueW := min(max(inner-30, 6), 14)
	for i, r := range f.rows {
		mark := "  "
		if i == f.focus {
			mark = "› "
		}
		box := "    "
		if r.toggle {
			box = "[ ] "
			if r.on {
				box = "[x] "
			}
		}
		head := fmt.Sprintf("%s%s%-10s", mark, box, r.name)
		label := st.Label.Render(head)
		if i == f.focus {
			label = st.FieldFocused.Render(head)
		}
		line := label
		used := len([]rune(head))
		if r.value != nil {
			line += " " + r.value.View(f.ctx, i == f.focus, valueW)
		} else {
			line += strings.Repeat(" ", 1+valueW) // the hints in one column
		}
		used += 1 + valueW
		if hintW := inner - used - 1; hintW > 4 {
			line += " " + st.Muted.Render(ui.Fit(r.hint, hintW))
		}
		lines = append(lines, line)
	}
	return lines
}

// chaosState is the config's state in a few words: off, on, on with the
// time left, or expired.
func chaosState(cfg model.ChaosConfig, now time.Time) string {
	switch {
	case cfg.ActiveAt(now):
		if t, ok := cfg.ChaosExpiry(); ok {
			return "active, " + ui.Countdown(t.Sub(now)) + " left"
		}
		return "active until switched off"
	case cfg.Enabled:
		return "expired (acts as off)"
	}
	return "off"
}

// ShortHelp lists the dialog's keys (only esc while it cannot edit).
func (f *chaosForm) ShortHelp() []key.Binding {
	if f.off || f.loading {
		return []key.Binding{f.keys.Cancel}
	}
	return f.keys.ShortHelp()
}

// FullHelp lists the dialog's keys.
func (f *chaosForm) FullHelp() [][]key.Binding { return f.keys.FullHelp() }
