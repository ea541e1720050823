package mail

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"sandview/client/linkcheck"
	"sandview/model"
	"sandview/tui/ui"
)

// linkChecks is the link check of one email, asked for with the
// CheckLinks key in the Links tab: running, or its results (one per row
// of the tab). Private destinations are checked only when the user
// presses the key again after a check refused some.
type linkChecks struct {
	id      string
	links   []string
	results []linkcheck.Result
	private bool
	cancel  context.CancelFunc // running when not nil
	version int                // changes with what the Links tab shows
}

// linksCheckedMsg carries the results of a link check.
type linksCheckedMsg struct {
	id      string
	version int
	results []linkcheck.Result
}

// toggle starts a check of links (the rows of m's Links tab), or cancels
// the one running.
func (c *linkChecks) toggle(ctx *ui.Context, parent context.Context, m model.Email, links []string) tea.Cmd {
	if c.cancel != nil && c.id == m.ID {
		c.cancel()
		c.cancel = nil
		c.version++
		ctx.Flash("link check cancelled", ui.LevelInfo)
		return nil
	}
	if c.cancel != nil {
		c.cancel()
	}
	if len(links) == 0 {
		ctx.Flash("this email has no links", ui.LevelWarn)
		return nil
	}
	// Asking again after private links were refused includes them.
	private := c.id == m.ID && c.refusedPrivate()
	checkCtx, cancel := context.WithCancel(parent)
	c.id, c.links, c.results, c.private, c.cancel = m.ID, links, nil, private, cancel
	c.version++
	id, version := m.ID, c.version
	what := fmt.Sprintf("checking %d links", len(links))
	if private {
		what += ", private addresses included"
	}
	ctx.Flash(what+"…", ui.LevelInfo)
	return func() tea.Msg {
		checker := linkcheck.New(linkcheck.Options{AllowPrivate: private})
		defer checker.Close()
		defer cancel()
		return linksCheckedMsg{id: id, version: version, results: checker.Check(checkCtx, links, nil)}
	}
}

// done takes the results of the check still wanted.
func (c *linkChecks) done(msg linksCheckedMsg) {
	if msg.id != c.id || msg.version != c.version {
		return
	}
	c.results, c.cancel = msg.results, nil
	c.version++
}

// refusedPrivate reports whether the last check left private links out.
func (c *linkChecks) refusedPrivate() bool {
	for _, r := range c.results {
		if r.Private {
			return true
		}
	}
	return false
}

// of is the result for row i of m's links, if checked.
func (c *linkChecks) of(m model.Email, links []string, i int) (linkcheck.Result, bool) {
	if c.id != m.ID || i >= len(c.results) || len(c.links) != len(links) || c.links[i] != links[i] {
		return linkcheck.Result{}, false
	}
	return c.results[i], true
}

// running reports whether m's links are being checked.
func (c *linkChecks) running(m model.Email) bool { return c.cancel != nil && c.id == m.ID }

// checkedRow is a row of the Links tab with its check: the status after
// the redirect chain, or why there is none.
func checkedRow(ctx *ui.Context, row choiceRow, r linkcheck.Result) choiceRow {
	st := ctx.Styles()
	var hops []string
	for _, h := range r.Redirects {
		hops = append(hops, fmt.Sprint(h.Status))
	}
	switch r.Outcome {
	case linkcheck.OK, linkcheck.Broken:
		chain := strings.Join(append(hops, fmt.Sprint(r.Status)), " → ")
		if r.FinalURL != "" {
			chain += " " + r.FinalURL
		}
		if r.Outcome == linkcheck.OK {
			row.text += "  ✓ " + chain
		} else {
			row.text += "  ✗ " + chain
			row.style = st.AuthFail.Render
		}
	case linkcheck.Unreachable:
		row.text += "  ✗ " + r.Error
		row.style = st.AuthFail.Render
	case linkcheck.NotChecked:
		row.text += "  – " + r.Error // says it was not checked, and why
		row.style = st.Muted.Render
	default:
		row.text += "  – " + r.Outcome
		row.style = st.Muted.Render
	}
	return row
}

// checkHint is the Links tab's line about the check.
func (c *linkChecks) checkHint(ctx *ui.Context, m model.Email) string {
	key := ui.KeyName(ctx.Keys.CheckLinks)
	switch {
	case c.running(m):
		return fmt.Sprintf("checking %d links… %s cancels", len(c.links), key)
	case c.id == m.ID && c.refusedPrivate():
		return fmt.Sprintf("private addresses were not checked: %s again checks them too", key)
	case c.id == m.ID && c.results != nil:
		return fmt.Sprintf("%s checks again", key)
	}
	return fmt.Sprintf("%s checks each link's HTTP status", key)
}
