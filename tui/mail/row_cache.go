package mail

import (
	"charm.land/bubbles/v2/spinner"

	"sandview/model"
	"sandview/tui/ui"
)

// rowCacheSize bounds the rendered rows kept: a few screens' worth. The
// cache is dropped whole when it fills.
const rowCacheSize = 512

// rowKey is everything a rendered row depends on: the email's shown
// fields, its flags in the list (fresh, marked, under the cursor), the
// list's focus, width, columns and query, the relative age as shown and
// the theme. A row whose key is unchanged renders to the same text.
type rowKey struct {
	id, from, subject, problem, badge, age, to string
	att                                        int
	known                                      bool // the content is loaded
	read, fresh, marked, selected, focused     bool
	width                                      int
	needs                                      rowNeeds
	query                                      string
	dark, noColor                              bool
}

// rowCache holds rendered rows by key, so a frame renders only the
// visible rows that changed since the last one (a burst of new mail
// renders the new rows, not the whole screen again).
type rowCache struct{ rows map[rowKey]string }

// rowPainter renders the email list's rows: it picks the columns the
// shown emails need and keeps the rows it rendered.
type rowPainter struct {
	ctx *ui.Context
	*shown
	find    *finder // the search whose matches the rows mark
	focused bool    // the list has the keyboard: the cursor row is lit
	// catchAll is the address of the inbox this client knows takes mail
	// to any address ("" when none does); showTo: the rows show each
	// mail's recipient, because some of it is for another address than
	// its inbox's (listsForeignMail).
	catchAll string
	showTo   bool
	// needs are the optional columns the rows need (email_row.go).
	needs rowNeeds
	// cache holds the rows rendered for recent frames.
	cache rowCache
	// spinner turns while the selected inbox waits for its list; hint
	// says what to do while an inbox is empty.
	spinner spinner.Model
	hint    func(e *inboxEntry) string
}

// cachedRow is row(m, owner, selected, width), rendered again only when
// its key changed.
func (l *rowPainter) cachedRow(m model.Email, owner *inboxEntry, selected bool, width int, query string) string {
	badge, _ := authBadge(l.ctx.Styles(), m)
	k := rowKey{
		id: m.ID, from: m.From, subject: m.Subject, problem: m.Problem, badge: badge,
		age: ui.RelativeTime(m.ReceivedAt, l.ctx.Now), att: len(m.Attachments), known: m.HasContent,
		read: m.IsRead, fresh: owner.fresh[m.ID], marked: owner.marked[m.ID], selected: selected, focused: l.focused,
		width: width, needs: l.needs, query: query, dark: l.ctx.Theme.Dark, noColor: l.ctx.Theme.NoColor,
	}
	if l.needs.to || l.showTo {
		k.to = recipient(m, owner)
	}
	if s, ok := l.cache.rows[k]; ok {
		return s
	}
	if l.cache.rows == nil || len(l.cache.rows) >= rowCacheSize {
		l.cache.rows = make(map[rowKey]string, rowCacheSize)
	}
	s := l.row(m, owner, selected, width)
	l.cache.rows[k] = s
	return s
}
