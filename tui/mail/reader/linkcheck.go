package reader

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
// CheckLinks key in the Links tab: running, with the results of the links
// that have answered, or done (one result per row of the tab). Private
// destinations are checked only when the user presses the key again after
// a check refused some, and never in a remote session (the box's own
// private network is not the user's).
type linkChecks struct {
	id    string
	links []string
	// results holds a result for each row; the zero Result for a row whose
	// link has not answered yet.
	results []linkcheck.Result
	checked int // rows with a result
	private bool
	cancel  context.CancelFunc // running when not nil
	// run tells the check running from those cancelled before it; updates
	// brings its results as they are known.
	run     int
	updates <-chan linksCheckedMsg
	version int // changes with what the Links tab shows
}

// linksCheckedMsg carries the result of one link of a check, or the
// results of all when the check is done.
type linksCheckedMsg struct {
	id  string
	run int
	// The result of link i, when not done.
	i       int
	result  linkcheck.Result
	done    bool
	results []linkcheck.Result
}

// toggle starts a check of links (the rows of m's Links tab), or cancels
// the one running; the command it returns brings the first result.
func (c *linkChecks) toggle(ctx *ui.Context, parent context.Context, m model.Email, links []string, privateAllowed bool) tea.Cmd {
	if c.cancel != nil && c.id == m.ID {
		c.stop()
		c.version++
		ctx.Flash("link check cancelled", ui.LevelInfo)
		return nil
	}
	if c.cancel != nil {
		c.stop()
	}
	if len(links) == 0 {
		ctx.Flash("this email has no links", ui.LevelWarn)
		return nil
	}
	// Asking again after private links were refused includes them, and so
	// does checking again after a check that included them.
	private := privateAllowed && c.id == m.ID && (c.private || c.refusedPrivate())
	checkCtx, cancel := context.WithCancel(parent)
	updates := make(chan linksCheckedMsg)
	c.id, c.links, c.results, c.checked, c.private, c.cancel = m.ID, links, make([]linkcheck.Result, len(links)), 0, private, cancel
	c.run++
	c.updates = updates
	c.version++
	what := fmt.Sprintf("checking %d links", len(links))
	if private {
		what += ", private addresses included"
	}
	ctx.Flash(what+"…", ui.LevelInfo)
	id, run := m.ID, c.run
	start := func() {
		defer close(updates)
		defer cancel()
		send := func(msg linksCheckedMsg) {
			select {
			case updates <- msg:
			case <-checkCtx.Done(): // cancelled: no one waits
			}
		}
		checker := linkcheck.New(linkcheck.Options{AllowPrivate: private})
		defer checker.Close()
		results := checker.Check(checkCtx, links, func(i int, r linkcheck.Result) {
			send(linksCheckedMsg{id: id, run: run, i: i, result: r})
		})
		send(linksCheckedMsg{id: id, run: run, done: true, results: results})
	}
	return func() tea.Msg {
		go start()
		return next(updates)
	}
}

// next waits for the next message of a check, nil when there is none.
func next(updates <-chan linksCheckedMsg) tea.Msg {
	msg, ok := <-updates
	if !ok {
		return nil
	}
	return msg
}

// stop cancels the check running; its results so far stay shown.
func (c *linkChecks) stop() {
	c.cancel()
	c.cancel, c.updates = nil, nil
	c.run++
}

// done takes a result of the check still wanted, and returns the command
// that waits for the next one. The last replaces the "checking" flash
// with how the check ended.
func (c *linkChecks) done(ctx *ui.Context, msg linksCheckedMsg) tea.Cmd {
	if msg.id != c.id || msg.run != c.run {
		return nil
	}
	c.version++
	if msg.done {
		c.results, c.checked, c.cancel, c.updates = msg.results, len(msg.results), nil, nil
		ctx.Flash(c.summary(), ui.LevelInfo)
		return nil
	}
	for j, l := range c.links { // a link listed twice is checked once
		if l == c.links[msg.i] && c.results[j].Outcome == "" {
			c.results[j] = msg.result
			c.checked++
		}
	}
	updates := c.updates
	return func() tea.Msg { return next(updates) }
}

// summary says how many links the check found in each outcome, such as
// "checked 12 links: 10 ok, 1 broken, 1 unreachable".
func (c *linkChecks) summary() string {
	counts := map[string]int{}
	for _, r := range c.results {
		counts[r.Outcome]++
	}
	var parts []string
	for _, o := range []string{linkcheck.OK, linkcheck.Broken, linkcheck.Unreachable, linkcheck.NotChecked} {
		if counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[o], o))
		}
	}
	return fmt.Sprintf("checked %d links: %s", len(c.results), strings.Join(parts, ", "))
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
	if c.id != m.ID || i >= len(c.results) || len(c.links) != len(links) || c.links[i] != links[i] || c.results[i].Outcome == "" {
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
	case c.running(m) && c.checked > 0:
		return fmt.Sprintf("checked %d of %d links… %s cancels", c.checked, len(c.links), key)
	case c.running(m):
		return fmt.Sprintf("checking %d links… %s cancels", len(c.links), key)
	case c.id == m.ID && c.refusedPrivate():
		return fmt.Sprintf("private addresses were not checked: %s again checks them too", key)
	case c.id == m.ID && c.results != nil:
		return fmt.Sprintf("%s checks again", key)
	}
	return fmt.Sprintf("%s checks each link's HTTP status", key)
}
