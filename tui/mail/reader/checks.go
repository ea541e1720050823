package reader

import (
	"fmt"

	"sandview/model"
	"sandview/tui/htmlcompat"
	"sandview/tui/ui"
)

// checksTab is the QA report of the open email: which email clients lack
// the HTML and CSS features it uses (caniemail's data; the report is made
// once per email), then the spam score the server gave it.
type checksTab struct {
	ctx    *ui.Context
	id     string
	report *htmlcompat.Report
	err    error
}

// label is Checks, short Chk (not Chec: the cell it saves lets the bar
// of a 60-column reader name every tab).
func (t *checksTab) label(_ model.Email, short bool) string {
	if short {
		return "Chk"
	}
	return "Checks"
}

// checkSection is one section of the Checks tab: a heading and the lines
// under it.
type checkSection struct {
	heading string
	lines   func(m model.Email, width int) []string
}

// sections are the Checks tab's sections in the order shown: a new check
// is a row here.
func (t *checksTab) sections() []checkSection {
	return []checkSection{
		{"HTML compatibility", t.compatSection},
		{"Spam score (SpamAssassin)", func(m model.Email, width int) []string { return spamLines(t.ctx, m.SpamAnalysis, width) }},
	}
}

func (t *checksTab) lines(m model.Email, width, _ int) tabContent {
	st := t.ctx.Styles()
	var out []string
	for i, s := range t.sections() {
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, st.AuthHeading.Render(ui.Fit(s.heading, width)))
		out = append(out, s.lines(m, width)...)
	}
	return textContent(out)
}

// compatSection is the compatibility report of m's HTML, or why there is
// none.
func (t *checksTab) compatSection(m model.Email, width int) []string {
	st := t.ctx.Styles()
	r, err := t.compat(m)
	switch {
	case err != nil:
		return ui.WrapStyled(st.Problem.Render, "⚠ "+err.Error(), width)
	case r == nil:
		return ui.WrapStyled(st.Muted.Render, "No HTML part: nothing for email clients to break.", width)
	}
	return compatLines(t.ctx, *r, width)
}

// compat is the report of m's HTML, made on first use; nil without HTML.
func (t *checksTab) compat(m model.Email) (*htmlcompat.Report, error) {
	if m.HTML == "" {
		return nil, nil
	}
	if t.id != m.ID || (t.report == nil && t.err == nil) {
		t.id, t.report, t.err = m.ID, nil, nil
		data, err := htmlcompat.Default()
		if err != nil {
			t.err = err
			return nil, err
		}
		r := data.Check(m.HTML)
		t.report = &r
	}
	return t.report, t.err
}

// compatLines lays a compatibility report out: the score, then each
// feature some client lacks, worst first, with the clients affected.
func compatLines(ctx *ui.Context, r htmlcompat.Report, width int) []string {
	st := ctx.Styles()
	score := st.AuthPass
	switch {
	case r.Score < 50:
		score = st.AuthFail
	case r.Score < 90:
		score = st.AuthWarn
	}
	out := []string{score.Render(fmt.Sprintf("%.0f%%", r.Score)) +
		st.Value.Render(fmt.Sprintf(" of %d email clients render every feature used", r.Clients))}
	off := r.Offenders()
	if len(off) == 0 {
		out = append(out, st.Muted.Render("Every feature used is supported everywhere."))
	}
	for _, f := range off {
		out = append(out, "")
		out = append(out, ui.WrapStyled(st.Label.Render, fmt.Sprintf("%3.0f%%  %s (%s, used %d×)", f.Support, f.Title, f.Slug, f.Uses), width)...)
		if len(f.Unsupported) > 0 {
			out = append(out, indented(st.AuthFail.Render, "not supported: "+htmlcompat.Clients(f.Unsupported), width)...)
		}
		if len(f.Partial) > 0 {
			out = append(out, indented(st.AuthWarn.Render, "partly: "+htmlcompat.Clients(f.Partial), width)...)
		}
	}
	out = append(out, "", st.Muted.Render(ui.Fit("Data: "+r.Data, width)))
	return out
}

// indented wraps s two columns in from the left edge.
func indented(render func(...string) string, s string, width int) []string {
	lines := ui.WrapStyled(render, s, max(width-2, 1))
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return lines
}

// spamLines is the spam score and the rules that fired, or why there is
// no score.
func spamLines(ctx *ui.Context, a *model.SpamAnalysis, width int) []string {
	st := ctx.Styles()
	style := st.Muted
	switch {
	case a != nil && a.Status == model.SpamAnalyzed && a.IsSpam:
		style = st.AuthFail
	case a != nil && a.Status == model.SpamAnalyzed:
		style = st.AuthPass
	case a != nil && a.Status == model.SpamError:
		style = st.AuthWarn
	}
	out := ui.WrapStyled(style.Render, model.SpamSummary(a), width)
	if a == nil {
		return out
	}
	for _, r := range a.Rules {
		out = append(out, ui.WrapStyled(st.Value.Render, fmt.Sprintf("%5.1f  %s  %s", r.Score, r.Name, r.Description), width)...)
	}
	return out
}
