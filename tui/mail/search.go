package mail

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/model/search"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// finder is the search of the message list: the text typed, the query it
// last parsed to, and the index that keeps each key press fast (it is
// prepared in the background as mail arrives, see Screen.prepare).
type finder struct {
	field  ui.TextField
	typing bool   // the search field has the keyboard
	text   string // the text the query was parsed from
	query  search.Query
	err    string // why text does not parse ("" when it does)
	index  *search.Index
}

// active reports whether a search is applied.
func (f *finder) active() bool { return f.text != "" }

// set parses text; a text that does not parse filters nothing (it is not
// searched as something else) and err says why. It reports whether the
// query changed.
func (f *finder) set(text string, ctx *ui.Context) bool {
	text = strings.TrimSpace(text)
	if text == f.text {
		return false
	}
	f.text = text
	q, err := search.Parse(text, ctx.Clock())
	f.err = ""
	if err != nil {
		f.err = termtext.SanitizeLine(err.Error())
		f.query = search.Query{}
		return true
	}
	f.query = q
	return true
}

// listing is what the message list shows before the search: the emails of
// the selected inbox, or of every inbox (in:all), newest first.
type listing struct {
	emails []model.Email
	owners []*inboxEntry // the inbox of each email; nil: all are entry's
	entry  *inboxEntry
}

// owner is the inbox of the email at position i.
func (s *listing) owner(i int) *inboxEntry {
	if s.owners != nil {
		return s.owners[i]
	}
	return s.entry
}

// allInboxes lists the emails of every inbox of st, newest first.
func allInboxes(st *mailState) listing {
	n := 0
	for _, e := range st.entries {
		n += len(e.emails)
	}
	out := listing{emails: make([]model.Email, 0, n), owners: make([]*inboxEntry, 0, n)}
	for _, e := range st.entries {
		out.emails = append(out.emails, e.emails...)
		for range e.emails {
			out.owners = append(out.owners, e)
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return out.emails[b].ReceivedAt.Compare(out.emails[a].ReceivedAt) })
	sorted := listing{emails: make([]model.Email, n), owners: make([]*inboxEntry, n)}
	for i, k := range order {
		sorted.emails[i], sorted.owners[i] = out.emails[k], out.owners[k]
	}
	return sorted
}

// needContent lists the inboxes of the listing that hold emails listed
// without their content (and not asked for it yet): a query that needs
// content cannot judge those.
func (s *listing) needContent() []*inboxEntry {
	var out []*inboxEntry
	seen := map[*inboxEntry]bool{}
	for i, m := range s.emails {
		e := s.owner(i)
		if !m.HasContent && m.Problem == "" && !e.contentAsked && !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// searchLines are the lines above the rows while a search is typed or
// applied: the field or the text and how many emails match, then, for a
// query that does not parse, why.
func (l *emailList) searchLines(width int) []string {
	lines := []string{l.searchLine(width)}
	if l.find.err != "" {
		lines = append(lines, ui.Fit(l.ctx.Styles().FieldError.Render("  "+l.find.err), width))
	}
	return lines
}

// searchLine is the search's first line: the field or the text, and how
// many emails match (or that nothing is filtered: the query does not
// parse).
func (l *emailList) searchLine(width int) string {
	st := l.ctx.Styles()
	f := &l.find
	count := fmt.Sprintf("%s of %d", ui.Plural(len(l.filtered), "match", "matches"), len(l.scope.emails))
	if f.query.AllInboxes() {
		count += " in all inboxes"
	}
	if p := l.loadProgress(); p != "" {
		count += " · " + p
	} else if l.loadingContent() {
		count += " · loading content…"
	}
	right := st.Muted.Render(count)
	if f.err != "" {
		right = st.FieldError.Render("✗ nothing filtered")
	} else if notes := f.query.Notes(); len(notes) > 0 {
		right = st.Muted.Render(count + " · " + notes[0])
	}
	label := st.FilterPrompt.Render("/ ")
	if f.typing {
		fieldW := max(width-2-min(termtext.Width(right), width/2)-1, 4)
		return ui.Fit(label+f.field.View(l.ctx, true, fieldW)+" "+right, width)
	}
	// The text gives way to the count, then the hint to the text.
	hint := st.Muted.Render(fmt.Sprintf("  (%s clears)", ui.KeyName(l.ctx.Keys.Back)))
	textW := width - 2 - 2 - termtext.Width(right) - termtext.Width(hint)
	if textW < min(termtext.Width(f.text), 12) {
		hint = ""
		textW = width - 2 - 2 - termtext.Width(right)
	}
	text := f.text
	if textW > 0 && termtext.Width(text) > textW {
		text = ui.Fit(text, textW)
	}
	return ui.Fit(label+st.Value.Render(text)+"  "+right+hint, width)
}

// loadingContent reports whether content a query needs is being listed
// or fetched (new mail comes without it, see fill.go).
func (l *emailList) loadingContent() bool {
	if !l.find.query.NeedsContent() {
		return false
	}
	for i := range l.scope.emails {
		if l.scope.owner(i).contentPending || l.lacksContent(i) {
			return true
		}
	}
	return false
}

// loadContent lists again, with content, the inboxes whose emails the
// query cannot judge without it.
func (l *emailList) loadContent() tea.Cmd {
	if !l.find.query.NeedsContent() {
		return nil
	}
	var cmds []tea.Cmd
	for _, e := range l.scope.needContent() {
		e.contentAsked, e.contentPending = true, true
		cmds = append(cmds, l.acts.cmds.loadEmails(e.info.EmailAddress))
	}
	return tea.Batch(cmds...)
}
