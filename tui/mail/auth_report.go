package mail

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"sandview/model"
	"sandview/theme"
	"sandview/tui/ui"
)

// authBadge is the short auth verdict shown in the message list, only when
// the content (and so the auth results) is loaded.
func authBadge(st *theme.Styles, m model.Email) (string, lipgloss.Style) {
	if !m.HasContent || m.Problem != "" {
		return "", st.Muted
	}
	v := m.AuthResults.Validate()
	switch {
	case v.Passed:
		return "pass", st.AuthPass
	case len(v.Failures) > 0:
		return "FAIL", st.AuthFail
	case len(v.Skipped) > 0:
		return "skip", st.AuthSkipped
	}
	return "n/a", st.AuthSkipped
}

// resultStyle colours a check result by meaning and adds a symbol so the
// meaning survives without colour.
func resultStyle(st *theme.Styles, result string) string {
	label := result
	if label == "" {
		label = model.ResultNone
	}
	switch result {
	case model.ResultPass:
		return st.AuthPass.Render("✓ " + label)
	case model.ResultFail, model.ResultPermerror:
		return st.AuthFail.Render("✗ " + label)
	case model.ResultSkipped:
		return st.AuthSkipped.Render("- " + label)
	}
	return st.AuthWarn.Render("~ " + label)
}

// authReportLines renders the SPF, DKIM, DMARC and reverse-DNS checks and
// the Validate summary, wrapped to width.
func authReportLines(ctx *ui.Context, m model.Email, width int) []string {
	st := ctx.Styles()
	switch {
	case m.ID == "":
		return []string{st.Muted.Render("Open a message to see its authentication report.")}
	case m.Problem != "":
		return []string{st.Problem.Render("⚠ " + m.Problem + ": no authentication results can be shown")}
	case !m.HasContent:
		return []string{st.Muted.Render("Loading the authentication results…")}
	}
	a := m.AuthResults
	v := a.Validate()
	var out []string
	add := func(s string) { out = append(out, s) }
	detail := func(parts ...string) {
		var kept []string
		for _, p := range parts {
			if p != "" {
				kept = append(kept, p)
			}
		}
		if len(kept) > 0 {
			for _, l := range ui.Wrap(strings.Join(kept, " · "), max(width-13, 10)) {
				add(strings.Repeat(" ", 13) + st.Muted.Render(l))
			}
		}
	}
	check := func(name, result string) {
		add(st.Label.Render(fmt.Sprintf("%-12s", name)) + " " + resultStyle(st, result))
	}

	switch {
	case v.Passed:
		add(st.AuthPass.Render("✓ PASSED") + st.Muted.Render("  SPF, DKIM and DMARC passed"))
	case len(v.Failures) == 0 && len(v.Skipped) > 0:
		add(st.AuthSkipped.Render("- NOT CHECKED") + st.Muted.Render("  the server skipped authentication"))
	default:
		add(st.AuthFail.Render("✗ NOT PASSED"))
	}
	for _, f := range v.Failures {
		for i, l := range ui.Wrap(f, max(width-4, 10)) {
			prefix := "  • "
			if i > 0 {
				prefix = "    "
			}
			add(st.AuthFail.Render(prefix + l))
		}
	}
	if len(v.Skipped) > 0 {
		add(st.AuthSkipped.Render("  skipped (informational): " + strings.Join(v.Skipped, ", ")))
	}
	add("")
	if a.SPF == nil && len(a.DKIM) == 0 && a.DMARC == nil && a.ReverseDNS == nil {
		add(st.Muted.Render("The server reported no authentication results."))
		return out
	}
	if a.SPF != nil {
		check("SPF", a.SPF.Result)
		detail(prefixed("domain ", a.SPF.Domain), prefixed("ip ", a.SPF.IP), a.SPF.Details)
	} else {
		check("SPF", "")
		detail("no data")
	}
	if len(a.DKIM) == 0 {
		check("DKIM", "")
		detail("no signature")
	}
	for i, d := range a.DKIM {
		name := "DKIM"
		if len(a.DKIM) > 1 {
			name = fmt.Sprintf("DKIM #%d", i+1)
		}
		check(name, d.Result)
		detail(prefixed("domain ", d.Domain), prefixed("selector ", d.Selector), prefixed("sig ", shorten(d.Signature, 24)))
	}
	if a.DMARC != nil {
		check("DMARC", a.DMARC.Result)
		aligned := "not aligned"
		if a.DMARC.Aligned {
			aligned = "aligned"
		}
		detail(prefixed("policy ", a.DMARC.Policy), aligned, prefixed("domain ", a.DMARC.Domain))
	} else {
		check("DMARC", "")
		detail("no data")
	}
	if a.ReverseDNS != nil {
		check("Reverse DNS", a.ReverseDNS.Result)
		detail(prefixed("host ", a.ReverseDNS.Hostname), prefixed("ip ", a.ReverseDNS.IP))
	} else {
		check("Reverse DNS", "")
		detail("no data")
	}
	return out
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func shorten(s string, n int) string { return ansi.Truncate(s, n, "…") }

// authReport is the pane showing the auth report of the open email beside
// the reader (wide layout); it never takes the keyboard.
type authReport struct {
	ctx    *ui.Context
	reader *reader
	view   viewport.Model
	drawn  contentKey // what the viewport holds
	width  int
	height int
}

func newAuthReport(ctx *ui.Context, r *reader) *authReport {
	return &authReport{ctx: ctx, reader: r, view: viewport.New()}
}

// SetSize sets the outer size of the pane.
func (p *authReport) SetSize(width, height int) {
	p.width, p.height = width, height
	p.view.SetWidth(max(width-2, 1))
	p.view.SetHeight(max(height-2, 1))
}

// SetFocus does nothing: the report is read beside the reader, never
// focused.
func (p *authReport) SetFocus(bool) {}

// HandleKey takes no key.
func (p *authReport) HandleKey(tea.KeyPressMsg) (tea.Cmd, bool) { return nil, false }

// wheel scrolls the report by a turn of the wheel.
func (p *authReport) wheel(lines int) {
	p.refresh()
	p.view.SetYOffset(p.view.YOffset() + lines)
}

// refresh fills the viewport with the report of the open email when what
// it depends on changed.
func (p *authReport) refresh() {
	m, _ := p.reader.email()
	k := contentKey{id: m.ID, hasContent: m.HasContent, problem: m.Problem, tab: tabAuth, width: p.width - 2,
		dark: p.ctx.Theme.Dark, plain: p.ctx.Theme.NoColor}
	if k == p.drawn && p.view.TotalLineCount() > 0 {
		return
	}
	p.drawn = k
	p.view.SetContentLines(ui.FitLines(authReportLines(p.ctx, m, k.width), k.width))
}

// View draws the report of the open email.
func (p *authReport) View() string {
	p.refresh()
	return ui.Frame(p.ctx, "Authentication", false, p.width, p.height, strings.Split(p.view.View(), "\n"))
}

// ShortHelp lists no key.
func (p *authReport) ShortHelp() []key.Binding { return nil }

// FullHelp lists no key.
func (p *authReport) FullHelp() [][]key.Binding { return nil }
