package theme

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// palette is the set of colours a theme is built from.
type palette struct {
	fg, muted, faint, accent, accentText, selectBg, selectFg color.Color
	pass, fail, warn, info, barBg, barFg, bannerBg, bannerFg color.Color
	// caution is the yellow of auth results that prove nothing either way.
	caution color.Color
	// matchBg marks search matches.
	matchBg color.Color
}

func darkPalette() palette {
	return palette{
		fg: lipgloss.Color("#E4E4E4"), muted: lipgloss.Color("#9A9A9A"), faint: lipgloss.Color("#5C5C5C"),
		accent: lipgloss.Color("#7D9CFF"), accentText: lipgloss.Color("#101010"),
		selectBg: lipgloss.Color("#34406B"), selectFg: lipgloss.Color("#FFFFFF"),
		pass: lipgloss.Color("#5FD787"), fail: lipgloss.Color("#FF5F5F"), warn: lipgloss.Color("#FFAF5F"),
		info: lipgloss.Color("#87AFD7"), barBg: lipgloss.Color("#262626"), barFg: lipgloss.Color("#D0D0D0"),
		bannerBg: lipgloss.Color("#FFD75F"), bannerFg: lipgloss.Color("#1C1C1C"),
		caution: lipgloss.Color("#F0D050"), matchBg: lipgloss.Color("#F0D050"),
	}
}

func lightPalette() palette {
	return palette{
		fg: lipgloss.Color("#1C1C1C"), muted: lipgloss.Color("#5F5F5F"), faint: lipgloss.Color("#A8A8A8"),
		accent: lipgloss.Color("#2F55D4"), accentText: lipgloss.Color("#FFFFFF"),
		selectBg: lipgloss.Color("#C6D4FF"), selectFg: lipgloss.Color("#000000"),
		pass: lipgloss.Color("#007A33"), fail: lipgloss.Color("#C00000"), warn: lipgloss.Color("#A15C00"),
		info: lipgloss.Color("#005F87"), barBg: lipgloss.Color("#E4E4E4"), barFg: lipgloss.Color("#262626"),
		bannerBg: lipgloss.Color("#FFD75F"), bannerFg: lipgloss.Color("#1C1C1C"),
		caution: lipgloss.Color("#7A6000"), matchBg: lipgloss.Color("#FFD75F"),
	}
}

// Styles are the named styles of the UI.
type Styles struct {
	// Panes
	Pane            lipgloss.Style // border of an unfocused pane
	PaneFocused     lipgloss.Style // border of the focused pane
	Title           lipgloss.Style // pane title, unfocused
	TitleFocused    lipgloss.Style
	Selected        lipgloss.Style // the row under the cursor in the focused pane
	SelectedBlurred lipgloss.Style
	Normal          lipgloss.Style
	Muted           lipgloss.Style
	// RenderNote is the line over a rendered mail's picture (its width,
	// scheme and keys), or saying why there is no picture.
	RenderNote   lipgloss.Style
	Dim          lipgloss.Style // expired inboxes
	Unread       lipgloss.Style // unread marker and subject
	New          lipgloss.Style // badge of mail that arrived live
	Encrypted    lipgloss.Style
	Plain        lipgloss.Style
	Chaos        lipgloss.Style // the badge of an inbox whose chaos is active
	Problem      lipgloss.Style // decryption failure / server key mismatch: loud
	Banner       lipgloss.Style // the SMTP hint
	Label        lipgloss.Style // header names, field labels
	Value        lipgloss.Style
	Link         lipgloss.Style
	Number       lipgloss.Style
	TabActive    lipgloss.Style
	TabInactive  lipgloss.Style
	FilterPrompt lipgloss.Style
	Match        lipgloss.Style // a search match in a row or a message
	Marked       lipgloss.Style // the mark of a message chosen for a bulk action

	// Authentication results
	AuthPass    lipgloss.Style // pass
	AuthFail    lipgloss.Style // fail, softfail, permerror
	AuthWarn    lipgloss.Style // none, neutral, temperror: no record, inconclusive
	AuthSkipped lipgloss.Style // skipped: informational
	AuthHeading lipgloss.Style

	// Webhooks
	HookEnabled      lipgloss.Style // the marker of an enabled webhook
	HookDisabled     lipgloss.Style
	SignatureValid   lipgloss.Style // a delivery signed by a known secret, fresh
	SignatureInvalid lipgloss.Style // signed by no known secret, or unsigned
	SignatureStale   lipgloss.Style // signed, but the timestamp is too old; or unchecked
	Secret           lipgloss.Style // a webhook secret, masked or shown
	Code             lipgloss.Style // JSON bodies and payloads

	// Status bar
	StatusBar   lipgloss.Style
	StatusLive  lipgloss.Style
	StatusWarn  lipgloss.Style
	StatusError lipgloss.Style
	StatusInfo  lipgloss.Style
	StatusOK    lipgloss.Style

	// Dialogs
	Dialog       lipgloss.Style
	DialogTitle  lipgloss.Style
	FieldFocused lipgloss.Style
	FieldError   lipgloss.Style
	Choice       lipgloss.Style
	ChoiceActive lipgloss.Style
}

// Theme is a complete look: the named styles plus styles for the bubbles
// components the UI embeds.
type Theme struct {
	Dark    bool
	NoColor bool
	Styles  Styles
}

// New builds the dark or light theme, or the colourless one when noColor is
// set (NO_COLOR).
func New(dark, noColor bool) Theme {
	if noColor {
		return Theme{Dark: dark, NoColor: true, Styles: monoStyles()}
	}
	p := lightPalette()
	if dark {
		p = darkPalette()
	}
	return Theme{Dark: dark, Styles: colourStyles(p)}
}

func colourStyles(p palette) Styles {
	base := lipgloss.NewStyle()
	fg := base.Foreground(p.fg)
	border := base.Border(lipgloss.RoundedBorder())
	return Styles{
		Pane:            base.Foreground(p.faint),
		PaneFocused:     base.Foreground(p.accent),
		Title:           base.Foreground(p.muted).Bold(true),
		TitleFocused:    base.Foreground(p.accent).Bold(true),
		Selected:        base.Background(p.selectBg).Foreground(p.selectFg),
		SelectedBlurred: base.Background(p.barBg).Foreground(p.fg),
		Normal:          fg,
		Muted:           base.Foreground(p.muted),
		RenderNote:      base.Foreground(p.muted).Italic(true),
		Dim:             base.Foreground(p.faint).Strikethrough(true),
		Unread:          base.Foreground(p.accent).Bold(true),
		New:             base.Background(p.warn).Foreground(p.accentText).Bold(true),
		Encrypted:       base.Foreground(p.pass),
		Plain:           base.Foreground(p.warn),
		Chaos:           base.Background(p.fail).Foreground(lipgloss.Color("#FFFFFF")).Bold(true),
		Problem:         base.Background(p.fail).Foreground(lipgloss.Color("#FFFFFF")).Bold(true),
		Banner:          base.Background(p.bannerBg).Foreground(p.bannerFg).Bold(true),
		Label:           base.Foreground(p.info).Bold(true),
		Value:           fg,
		Link:            base.Foreground(p.accent).Underline(true),
		Number:          base.Foreground(p.muted),
		TabActive:       base.Background(p.accent).Foreground(p.accentText).Bold(true),
		TabInactive:     base.Foreground(p.muted),
		FilterPrompt:    base.Foreground(p.accent).Bold(true),
		Match:           base.Background(p.matchBg).Foreground(p.bannerFg).Bold(true),
		Marked:          base.Foreground(p.warn).Bold(true),

		AuthPass:    base.Foreground(p.pass).Bold(true),
		AuthFail:    base.Foreground(p.fail).Bold(true),
		AuthWarn:    base.Foreground(p.caution).Bold(true),
		AuthSkipped: base.Foreground(p.muted).Italic(true),
		AuthHeading: base.Foreground(p.fg).Bold(true).Underline(true),

		HookEnabled:      base.Foreground(p.pass).Bold(true),
		HookDisabled:     base.Foreground(p.faint),
		SignatureValid:   base.Foreground(p.pass).Bold(true),
		SignatureInvalid: base.Background(p.fail).Foreground(lipgloss.Color("#FFFFFF")).Bold(true),
		SignatureStale:   base.Foreground(p.warn).Bold(true),
		Secret:           base.Foreground(p.warn),
		Code:             base.Foreground(p.info),

		StatusBar:   base.Background(p.barBg).Foreground(p.barFg),
		StatusLive:  base.Background(p.barBg).Foreground(p.pass).Bold(true),
		StatusWarn:  base.Background(p.barBg).Foreground(p.warn).Bold(true),
		StatusError: base.Background(p.fail).Foreground(lipgloss.Color("#FFFFFF")).Bold(true),
		StatusInfo:  base.Background(p.barBg).Foreground(p.info),
		StatusOK:    base.Background(p.barBg).Foreground(p.pass),

		Dialog:       border.BorderForeground(p.accent).Padding(0, 1),
		DialogTitle:  base.Foreground(p.accent).Bold(true),
		FieldFocused: base.Foreground(p.accent).Bold(true),
		FieldError:   base.Foreground(p.fail).Bold(true),
		Choice:       base.Foreground(p.muted),
		ChoiceActive: base.Background(p.accent).Foreground(p.accentText).Bold(true),
	}
}

// monoStyles carries meaning with bold, underline, reverse and faint only.
func monoStyles() Styles {
	base := lipgloss.NewStyle()
	bold := base.Bold(true)
	border := base.Border(lipgloss.RoundedBorder())
	return Styles{
		Pane:            base,
		PaneFocused:     bold,
		Title:           base,
		TitleFocused:    bold.Underline(true),
		Selected:        base.Reverse(true),
		SelectedBlurred: base.Underline(true),
		Normal:          base,
		Muted:           base.Faint(true),
		RenderNote:      base.Faint(true),
		Dim:             base.Faint(true).Strikethrough(true),
		Unread:          bold,
		New:             bold.Reverse(true),
		Encrypted:       base,
		Plain:           base,
		Chaos:           bold.Reverse(true),
		Problem:         bold.Reverse(true),
		Banner:          bold.Reverse(true),
		Label:           bold,
		Value:           base,
		Link:            base.Underline(true),
		Number:          base.Faint(true),
		TabActive:       bold.Reverse(true),
		TabInactive:     base,
		FilterPrompt:    bold,
		Match:           bold.Underline(true),
		Marked:          bold,

		AuthPass:    bold,
		AuthFail:    bold.Reverse(true),
		AuthWarn:    bold.Underline(true),
		AuthSkipped: base.Faint(true),
		AuthHeading: bold.Underline(true),

		HookEnabled:      bold,
		HookDisabled:     base.Faint(true),
		SignatureValid:   bold,
		SignatureInvalid: bold.Reverse(true),
		SignatureStale:   bold.Underline(true),
		Secret:           base.Italic(true),
		Code:             base,

		StatusBar:   base.Reverse(true),
		StatusLive:  bold.Reverse(true),
		StatusWarn:  bold.Reverse(true),
		StatusError: bold.Reverse(true).Underline(true),
		StatusInfo:  base.Reverse(true),
		StatusOK:    base.Reverse(true),

		Dialog:       border.Padding(0, 1),
		DialogTitle:  bold,
		FieldFocused: bold.Underline(true),
		FieldError:   bold.Reverse(true),
		Choice:       base,
		ChoiceActive: bold.Reverse(true),
	}
}

// Help returns the styles for the bubbles help view.
func (t Theme) Help() help.Styles {
	if t.NoColor {
		base := lipgloss.NewStyle()
		return help.Styles{
			Ellipsis: base, ShortKey: base.Bold(true), ShortDesc: base, ShortSeparator: base.Faint(true),
			FullKey: base.Bold(true), FullDesc: base, FullSeparator: base.Faint(true),
		}
	}
	return help.DefaultStyles(t.Dark)
}

// TextInput returns the styles of a one-line text field: the text in the
// value style and a steady block cursor in the selection colour (reverse
// video without colours).
func (t Theme) TextInput() textinput.Styles {
	st := t.Styles
	state := textinput.StyleState{Text: st.Value, Placeholder: st.Muted, Suggestion: st.Muted, Prompt: lipgloss.NewStyle()}
	s := textinput.Styles{Focused: state, Blurred: state, Cursor: textinput.CursorStyle{Shape: tea.CursorBlock}}
	if !t.NoColor {
		s.Cursor.Color = st.Selected.GetBackground()
	}
	return s
}

// Border returns the border drawn around a pane: rounded, and thick for the
// focused pane when there are no colours to tell it apart.
func (t Theme) Border(focused bool) lipgloss.Border {
	if focused && t.NoColor {
		return lipgloss.ThickBorder()
	}
	return lipgloss.RoundedBorder()
}
