package mail

import (
	"context"
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/model/search"
	"sandview/tui/feed"
	"sandview/tui/mail/reader"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// Each pane is built alone over a seeded state, with the fixed theme,
// keys and clock of tuitest.Context, driven by keys and compared with its
// golden file at tuitest.PaneSizes; every view must be exactly its size.

// paneKit is what a pane needs: the shared context, a state holding the
// fixtures (demo loaded, plain empty, old not loaded) and the actions.
type paneKit struct {
	ctx   *ui.Context
	state *mailState
	cmds  commands
	acts  *actions
}

func newPaneKit() *paneKit {
	ctx := tuitest.Context(true)
	st := &mailState{}
	st.setInboxes(tuitest.Inboxes())
	demo, _ := st.find(tuitest.DemoAddr)
	demo.setEmails(tuitest.Emails())
	plain, _ := st.find(tuitest.PlainAddr)
	plain.setEmails(nil)
	cmds := commands{ctx: context.Background(), svc: tuitest.NewFixtureService(), set: &ui.Settings{Open: func(context.Context, string) error { return nil }}}
	return &paneKit{ctx: ctx, state: st, cmds: cmds, acts: &actions{ctx: ctx, cmds: cmds, state: st, current: func() *inboxEntry { return demo }}}
}

func TestInboxListPane(t *testing.T) {
	list := func(focused bool, entries func(*mailState)) func() ui.Component {
		return func() ui.Component {
			k := newPaneKit()
			entries(k.state)
			l := newInboxList(k.ctx, k.state, k.acts)
			l.SetFocus(focused)
			return l
		}
	}
	keep := func(*mailState) {}
	tuitest.PaneGoldens(t, map[string]tuitest.PaneCase{
		"first":   {Build: list(true, keep)},
		"last":    {Build: list(true, keep), Keys: []string{"G"}},
		"blurred": {Build: list(false, keep), Keys: []string{"j"}},
		"empty":   {Build: list(true, func(s *mailState) { s.entries = nil })},
	})
}

func TestEmailListPane(t *testing.T) {
	list := func(address string) func() ui.Component {
		return func() ui.Component {
			k := newPaneKit()
			l := newEmailList(k.ctx, k.state, k.acts, search.NewIndex(), func(e *inboxEntry) string { return "send mail to " + e.info.EmailAddress }, "")
			l.SetFocus(true)
			e, _ := k.state.find(address)
			l.setEntry(e)
			return l
		}
	}
	demo := list(tuitest.DemoAddr)
	tuitest.PaneGoldens(t, map[string]tuitest.PaneCase{
		"cursor":    {Build: demo, Keys: []string{"j", "j"}},
		"last":      {Build: demo, Keys: []string{"pgdown"}},
		"filtering": {Build: demo, Keys: []string{"/", "b", "o"}},
		"filtered":  {Build: demo, Keys: []string{"/", "b", "o", "enter"}},
		"operators": {Build: demo, Keys: typed("/from:alice is:unread", "enter")},
		"no_match":  {Build: demo, Keys: typed("/-is:read zzz", "enter")},
		"bad_query": {Build: demo, Keys: typed("/is:maybe")},
		"marked":    {Build: demo, Keys: []string{"space", "x", "k"}},
		"empty":     {Build: list(tuitest.PlainAddr)},
	})
}

// typed is the keys that type text, then the named keys.
func typed(text string, names ...string) []string {
	var out []string
	for _, r := range text {
		out = append(out, string(r))
	}
	return append(out, names...)
}

func TestReaderPane(t *testing.T) {
	open := func(id string, tab reader.Tab) func() ui.Component {
		return func() ui.Component {
			k := newPaneKit()
			r := k.reader()
			r.SetFocus(true)
			r.Open(tuitest.DemoAddr, id)
			r.SetTab(tab)
			return r
		}
	}
	tuitest.PaneGoldens(t, map[string]tuitest.PaneCase{
		"none":        {Build: open("", reader.TabBody)},
		"body_scroll": {Build: open("e1", reader.TabBody), Keys: []string{"down", "down"}},
		"headers":     {Build: open("e1", reader.TabHeaders)},
		"links":       {Build: open("e1", reader.TabLinks), Keys: []string{"down", "down"}},
		"attachments": {Build: open("e1", reader.TabAttachments)},
		"auth":        {Build: open("e1", reader.TabAuth), Keys: []string{"end"}},
		"hostile":     {Build: open("e2", reader.TabHeaders)},
		"problem":     {Build: open("e3", reader.TabBody)},
		"raw_loaded": {Build: func() ui.Component {
			r := open("e1", reader.TabRaw)().(*reader.Reader)
			r.SetRaw(tuitest.DemoAddr, "e1", tuitest.RawE1(), nil)
			return r
		}},
	})
}

func TestAuthReportPane(t *testing.T) {
	report := func(id string, expanded bool) func() ui.Component {
		return func() ui.Component {
			k := newPaneKit()
			r := k.reader()
			r.Open(tuitest.DemoAddr, id)
			p := newAuthReport(k.ctx, r)
			p.expanded = expanded
			return p
		}
	}
	tuitest.PaneGoldens(t, map[string]tuitest.PaneCase{
		"passing":          {Build: report("e1", false)},
		"failing":          {Build: report("e2", false)},
		"passing_expanded": {Build: report("e1", true)},
		"failing_expanded": {Build: report("e2", true)},
	})
}

// TestCatchAllListShowsRecipients: once the catch-all holds mail for
// other addresses, its list has a recipient column; before, and in other
// inboxes' lists, it does not.
func TestCatchAllListShowsRecipients(t *testing.T) {
	h := newHarnessWith(t, 200, 40, ui.Settings{CatchAll: tuitest.DemoAddr})
	if h.s.panes.emails.showTo {
		t.Fatalf("a catch-all holding only its own mail shows recipients:\n%s", h.shown())
	}
	h.Send(feed.NewEmailMsg{Address: tuitest.DemoAddr, Email: model.Email{
		ID: "c1", From: "app@shop.example", To: []string{"qa-17@example.com"}, Subject: "Your receipt", ReceivedAt: tuitest.Now().Add(time.Second),
	}})
	row := ""
	for _, line := range strings.Split(h.shown(), "\n") {
		if strings.Contains(line, "Your receipt") {
			row = line
		}
	}
	if !strings.Contains(row, "qa-17@") || strings.Index(row, "app@shop.") > strings.Index(row, "qa-17@") {
		t.Fatalf("the catch-all's row does not show the recipient after the sender: %q", row)
	}
	if !strings.Contains(h.shown(), tuitest.DemoAddr+" ") {
		t.Fatalf("mail sent to the inbox itself does not name it:\n%s", h.shown())
	}

	// Mail Bcc'd to an inbox (its envelope names the inbox, its To
	// someone else) is the inbox's own: no column.
	other := newHarnessWith(t, 200, 40, ui.Settings{CatchAll: "someone-else@sandbox.test"})
	other.Send(feed.NewEmailMsg{Address: tuitest.DemoAddr, Email: model.Email{
		ID: "c1", From: "app@shop.example", To: []string{"qa-17@example.com"}, Subject: "Your receipt", ReceivedAt: tuitest.Now().Add(time.Second),
		Envelope: &model.Envelope{From: "app@shop.example", To: []string{tuitest.DemoAddr}},
	}})
	if strings.Contains(other.shown(), "qa-17@example.com") {
		t.Fatalf("a list of the inbox's own mail shows recipients:\n%s", other.shown())
	}
}

// TestAnyCatchAllListShowsRecipients: a client that did not make the
// catch-all (--url after inbox attach, a session of serve) knows it by
// its mail: envelope recipients other than the inbox's own address give
// its list the recipient column, sized as the list's width rules say.
func TestAnyCatchAllListShowsRecipients(t *testing.T) {
	h := newHarnessWith(t, 200, 40, ui.Settings{})
	h.Send(feed.NewEmailMsg{Address: tuitest.DemoAddr, Email: model.Email{
		ID: "c1", From: "app@shop.example", To: []string{}, Subject: "Your receipt", ReceivedAt: tuitest.Now().Add(time.Second),
		Envelope: &model.Envelope{From: "bounce@shop.example", To: []string{"qa-17@example.com"}},
	}})
	if !h.s.panes.emails.showTo {
		t.Fatalf("a list holding mail for other addresses shows no recipients:\n%s", h.shown())
	}
	row := ""
	for _, line := range strings.Split(h.shown(), "\n") {
		if strings.Contains(line, "Your receipt") {
			row = line
		}
	}
	sent := model.Email{To: []string{}, Envelope: &model.Envelope{To: []string{"qa-17@example.com"}}}
	if !strings.Contains(row, "qa-17@") {
		t.Fatalf("the row does not show the envelope recipient, labelled: %q", row)
	}
	for width, want := range map[int]string{28: "qa-17@example.com (envelope)", 20: "qa-17@ex… (envelope)", 11: "qa-1… (env)", 9: "qa… (env)", 8: "qa-17@e…"} {
		if got := recipientCell(recipient(sent, nil), width); got != want {
			t.Errorf("recipient in %d cells: %q, want %q", width, got, want)
		}
	}
	if cols := columnsFor(200, rowNeeds{to: true}); cols.to != nameColumnMax || cols.from != nameColumnMax {
		t.Fatalf("at 200 columns the names take %d and %d cells, want %d", cols.from, cols.to, nameColumnMax)
	}
}

// TestRecipientColumnMarksMatches: a search that matches the recipient
// (to:, rcpt: or free text) marks it in the recipient column.
func TestRecipientColumnMarksMatches(t *testing.T) {
	h := newHarnessWith(t, 200, 40, ui.Settings{})
	mail := model.Email{
		ID: "c1", From: "app@shop.example", To: []string{"qa-17@example.com"}, Subject: "Your receipt", ReceivedAt: tuitest.Now().Add(time.Second),
		Envelope: &model.Envelope{To: []string{"qa-17@example.com"}},
	}
	h.svc.AddEmail(tuitest.DemoAddr, mail)
	h.Send(feed.NewEmailMsg{Address: tuitest.DemoAddr, Email: mail})
	st := h.ctx.Styles()
	marked := func() bool {
		view := h.s.panes.emails.View()
		return strings.Contains(view, st.Match.Render("qa-17")) || strings.Contains(view, st.Match.Inherit(st.Selected).Render("qa-17"))
	}
	if marked() {
		t.Fatal("the recipient is marked before any search")
	}
	for _, query := range []string{"rcpt:qa-17", "to:qa-17", "qa-17"} {
		h.search(query)
		if !marked() {
			t.Errorf("%s: the recipient is not marked:\n%s", query, h.shown())
		}
		h.Press("esc")
	}
}

// reader is the reader pane over the kit's state, as the screen builds it.
func (k *paneKit) reader() *reader.Reader {
	return reader.New(k.ctx, context.Background(), k.cmds.set, readerHost{ctx: k.ctx, cmds: k.cmds, state: k.state, acts: k.acts})
}
