package mail

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"sandview/model"
	"sandview/model/termtext"
	"sandview/theme"
	"sandview/tui/mail/reader"
	"sandview/tui/ui"
)

// authBadge is the short auth verdict shown in the message list, only when
// the content (and so the auth results) is loaded: unknownMark while it
// is not (new mail comes with its metadata only), nothing for an email
// that could not be opened.
func authBadge(st *theme.Styles, m model.Email) (string, lipgloss.Style) {
	switch {
	case m.Problem != "":
		return "", st.Muted
	case !m.HasContent:
		return unknownMark, st.Muted
	}
	v := m.AuthResults.Verdict()
	return v.Badge(), verdictStyle(st, v)
}

// authNotice is the line shown instead of a report when there is none to
// show ("" when there is one).
func authNotice(st *theme.Styles, m model.Email) string {
	switch {
	case m.ID == "":
		return st.Muted.Render("Open a message to see its authentication report.")
	case m.Problem != "":
		return st.Problem.Render("⚠ " + m.Problem + ": no authentication results can be shown")
	case !m.HasContent:
		return st.Muted.Render("Loading the authentication results…")
	}
	return ""
}

// verdictLine is the verdict of m on one line: its heading, then why (the
// reasons of the checks that did not pass, such as "DKIM: the DNS did not
// answer", else the verdict's explanation).
func verdictLine(st *theme.Styles, m model.Email) string {
	if n := authNotice(st, m); n != "" {
		return n
	}
	checks := m.AuthResults.Checks()
	v := checks.Verdict()
	why := v.Explanation()
	if reasons := checks.Reasons(); len(reasons) > 0 {
		why = strings.Join(sanitizeLines(reasons), "; ")
	}
	return verdictStyle(st, v).Render(v.Heading()) + st.Muted.Render("  "+why)
}

// authIndent is where the details of a check start.
const authIndent = 13

// authReportLines renders the verdict and each check (model.Checks, the
// ones not reported too), each detail wrapped to width.
func authReportLines(ctx *ui.Context, m model.Email, width int) []string {
	st := ctx.Styles()
	if n := authNotice(st, m); n != "" {
		return ui.Wrap(n, width)
	}
	checks := m.AuthResults.Checks()
	verdict := checks.Verdict()
	out := ui.Wrap(verdictLine(st, m), width)
	if skipped := checks.Validate().Skipped; len(skipped) > 0 && verdict != model.VerdictNotChecked {
		out = append(out, ui.WrapStyled(st.AuthSkipped.Render, "skipped (informational): "+strings.Join(skipped, ", "), width)...)
	}
	if verdict == model.VerdictNoResults {
		return out
	}
	out = append(out, "")
	for _, c := range checks {
		if !c.Reported {
			out = append(out, checkLines(st, c.Name, c.Name, model.CheckEntry{}, width)...)
		}
		entries := c.Entries()
		for i, e := range entries {
			label := c.Name
			if len(entries) > 1 {
				label = fmt.Sprintf("%s #%d", c.Name, i+1)
			}
			out = append(out, checkLines(st, label, c.Name, e, width)...)
		}
	}
	return out
}

// checkLines is one result of the check named check: label and the result
// on the first lines, the details (sanitized, they come from the mail's
// sender and the server) joined under them.
func checkLines(st *theme.Styles, label, check string, e model.CheckEntry, width int) []string {
	var out []string
	pad := strings.Repeat(" ", authIndent)
	result := termtext.SanitizeLine(e.Result)
	for i, l := range ui.WrapHanging(st.Label.Render(fmt.Sprintf("%-*s", authIndent, label))+resultText(st, check, result), width, max(width-authIndent, 1)) {
		if i > 0 {
			l = pad + l
		}
		out = append(out, l)
	}
	for _, l := range ui.Wrap(strings.Join(sanitizeLines(e.Details), " · "), max(width-authIndent, 1)) {
		if l != "" {
			out = append(out, pad+st.Muted.Render(l))
		}
	}
	return out
}

// authReport is the pane under the reader (wide layout) that shows the
// auth verdict of the open email on one line, or, expanded, the whole
// report (the reader's Auth tab has it too); it never takes the keyboard.
type authReport struct {
	ctx      *ui.Context
	reader   *reader.Reader
	expanded bool
	scroll   ui.Scroller
	drawn    authKey // what the scroller holds
	width    int
	height   int
}

// authKey is what the auth pane's lines depend on.
type authKey struct {
	id          string
	hasContent  bool
	problem     string
	width       int
	dark, plain bool
	expanded    bool
}

// authCollapsedHeight is the height of the pane showing the verdict line.
const authCollapsedHeight = 3

func newAuthReport(ctx *ui.Context, r *reader.Reader) *authReport {
	return &authReport{ctx: ctx, reader: r}
}

// SetSize sets the outer size of the pane.
func (p *authReport) SetSize(width, height int) {
	p.width, p.height = width, height
	p.scroll.SetHeight(height - 2)
}

// SetFocus does nothing: the report is read beside the reader, never
// focused.
func (p *authReport) SetFocus(bool) {}

// HandleKey takes no key.
func (p *authReport) HandleKey(tea.KeyPressMsg) (tea.Cmd, bool) { return nil, false }

// wheel scrolls the report by a turn of the wheel.
func (p *authReport) wheel(lines int) {
	p.refresh()
	p.scroll.ScrollBy(lines)
}

// refresh lays out the verdict or the report of the open email when what
// it depends on changed.
func (p *authReport) refresh() {
	m, _ := p.reader.Email()
	k := authKey{id: m.ID, hasContent: m.HasContent, problem: m.Problem, width: p.width - 2,
		dark: p.ctx.Theme.Dark, plain: p.ctx.Theme.NoColor, expanded: p.expanded}
	if k == p.drawn {
		return
	}
	p.drawn = k
	st := p.ctx.Styles()
	if !p.expanded {
		hint := st.Muted.Render(fmt.Sprintf("  (%s: details)", ui.KeyName(p.ctx.Keys.AuthDetails)))
		p.scroll.SetLines([]string{verdictLine(st, m) + hint})
		return
	}
	p.scroll.SetLines(authReportLines(p.ctx, m, k.width))
}

// View draws the verdict or the report of the open email.
func (p *authReport) View() string {
	p.refresh()
	return ui.Frame(p.ctx, "Authentication", false, p.width, p.height, p.scroll.Visible())
}

// ShortHelp lists no key.
func (p *authReport) ShortHelp() []key.Binding { return nil }

// FullHelp lists no key.
func (p *authReport) FullHelp() [][]key.Binding { return nil }

// toggleAuth expands or collapses the auth pane where the layout has one,
// and shows the reader's Auth tab where it has not.
func (s *panes) toggleAuth() {
	if s.lay.Mode != ui.Wide {
		s.reader.SetTab(reader.TabAuth)
		if s.lay.Mode == ui.Narrow && s.shown().id != "" {
			s.setFocus(PaneReader)
		}
		return
	}
	s.auth.expanded = !s.auth.expanded
	s.SetSize(s.width, s.height)
}
