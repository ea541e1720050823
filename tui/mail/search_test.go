package mail

import (
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/model/search"
	"sandview/tui/tuitest"
)

// search types a query into the list's search and accepts it.
func (h *harness) search(query string) {
	h.T.Helper()
	h.Press("/")
	h.Type(query)
	h.Press("enter")
}

// shownIDs are the ids of the emails the list shows, in order.
func (h *harness) shownIDs() []string {
	var ids []string
	for _, pos := range h.s.panes.emails.filtered {
		ids = append(ids, h.s.panes.emails.scope.emails[pos].ID)
	}
	return ids
}

func TestSearchOperators(t *testing.T) {
	cases := []struct {
		query string
		want  string
	}{
		{"from:alice", "[e1]"},
		{"is:unread", "[e1 e2 e3]"},
		{"is:read", "[e4]"},
		{"has:attachment", "[e1]"},
		{"auth:pass", "[e1]"},
		{"auth:fail", "[e2]"},
		{"spf:softfail", "[e2]"},
		{"dmarc:fail", "[e2]"},
		{`"friendly email"`, "[e1]"},
		{"-from:alice is:unread", "[e2 e3]"},
		{"subject:sandbox", "[e1]"},
		{"to:demo@sandbox.test", "[e1 e2 e4]"},
		{"before:" + tuitest.Now().Add(-24*time.Hour).Format("2006-01-02T15:04"), "[e3 e4]"},
		{"after:1h", "[e1]"},
	}
	for _, c := range cases {
		h := newHarness(t, 140, 37)
		h.search(c.query)
		if got := strings.Join(h.shownIDs(), " "); "["+got+"]" != c.want {
			t.Errorf("%s: shows [%s], want %s", c.query, got, c.want)
		}
	}
}

func TestSearchCountTitleAndHighlights(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.search("from:alice")
	view := h.shown()
	for _, want := range []string{"1 match of 4", "Messages 1/1", "(esc clears)"} {
		if !strings.Contains(view, want) {
			t.Fatalf("view lacks %q:\n%s", want, view)
		}
	}
	st := h.ctx.Styles()
	if !strings.Contains(h.s.panes.emails.View(), st.Match.Render("Alice")) {
		t.Fatal("the match in the sender is not marked")
	}
	h.Press("esc")
	if h.s.panes.emails.find.active() || len(h.s.panes.emails.filtered) != 4 {
		t.Fatal("esc did not clear the search")
	}
}

// TestSearchAcrossInboxes checks in:all: the list holds every inbox's
// matches, newest first, and acts on the inbox each email belongs to.
func TestSearchAcrossInboxes(t *testing.T) {
	h := newHarness(t, 140, 37)
	plainMail := model.Email{ID: "p1", From: "alice@example.com", To: []string{tuitest.PlainAddr}, Subject: "Plain hello",
		ReceivedAt: tuitest.Now().Add(-time.Minute), HasContent: true, Text: "hi"}
	h.svc.SetEmails(tuitest.PlainAddr, []model.Email{plainMail})
	h.Send(emailsLoadedMsg{address: tuitest.PlainAddr, emails: []model.Email{plainMail}})
	h.search("in:all alice")
	if got := strings.Join(h.shownIDs(), " "); got != "p1 e1" {
		t.Fatalf("in:all alice shows %s, want the plain inbox's mail first, then the demo one", got)
	}
	if title, line := h.s.panes.emails.title(), tuitest.Plain(h.s.panes.emails.searchLine(100)); title != "All inboxes 1/2" || !strings.Contains(line, "2 matches of 5 in all inboxes") {
		t.Fatalf("the scope is not said, or the cursor, never moved, left the newest mail: %q, %q", title, line)
	}
	h.Press("g", "d", "y")
	if !h.svc.Called("deleteEmail plain@sandbox.test p1") {
		t.Fatalf("delete did not act on the email's own inbox: %v", h.svc.Calls())
	}
}

// TestSearchLoadsContentWhenNeeded lists an inbox without content: a
// query that needs content lists it again with content, once however many
// keys are typed, and the body is then searched.
func TestSearchLoadsContentWhenNeeded(t *testing.T) {
	h := newHarness(t, 140, 37)
	meta := tuitest.Emails()
	for i := range meta {
		meta[i].HasContent, meta[i].Text = false, ""
	}
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: meta})
	before := len(h.svc.Calls())
	h.search(`"friendly email"`)
	h.Press("esc")
	h.search("friendly")
	calls := strings.Join(h.svc.Calls()[before:], "\n")
	if n := strings.Count(calls, "emails demo@sandbox.test"); n != 1 {
		t.Fatalf("the inbox was listed %d times for content: %v", n, calls)
	}
	if got := strings.Join(h.shownIDs(), " "); got != "e1" {
		t.Fatalf("the body search shows %q once the content is in", got)
	}
}

// TestBadQuerySaysWhyOnItsOwnLine checks that a query that does not
// parse says why at the search line and filters nothing: no part of it is
// applied, not the part that parses, not its text.
func TestBadQuerySaysWhyOnItsOwnLine(t *testing.T) {
	h := newHarness(t, 200, 37)
	h.Press("/")
	h.Type("from:alice is:starred")
	line := tuitest.Plain(strings.Join(h.s.panes.emails.searchLines(200), "\n"))
	if !strings.Contains(line, `"is:starred": is: takes read or unread`) || !strings.Contains(line, "nothing filtered") || len(h.s.panes.emails.filtered) != 4 {
		t.Fatalf("a bad query: %d shown, line %q", len(h.s.panes.emails.filtered), line)
	}
	h.Press("backspace")
	if len(h.s.panes.emails.filtered) != 4 {
		t.Fatalf("is:starre filtered %d", len(h.s.panes.emails.filtered))
	}
}

// TestSearchMatchingNothingSaysSo: a search that matches nothing says no
// email matches, not that no mail came, even in an inbox with no mail.
func TestSearchMatchingNothingSaysSo(t *testing.T) {
	h := newHarness(t, 200, 37)
	h.search("zzz-nothing")
	h.rest() // the mail listed without content is fetched
	if v := h.shown(); !strings.Contains(v, search.NoMatches) || strings.Contains(v, "No mail yet") {
		t.Fatalf("a search matching nothing:\n%s", v)
	}
	h.Press("shift+tab", "j")
	if v := h.shown(); !strings.Contains(v, search.NoMatches) {
		t.Fatalf("a search in an empty inbox:\n%s", v)
	}
}

// TestBadQueryFiltersNothing checks that a query that does not parse says
// why at the search line and filters nothing: it is not searched as text
// ("is" matched unrelated mail).
func TestBadQueryFiltersNothing(t *testing.T) {
	h := newHarness(t, 140, 37)
	all := len(h.s.panes.emails.filtered)
	h.Press("/")
	h.Type("is:starred")
	if !strings.Contains(h.shown(), "✗") || !strings.Contains(h.s.panes.emails.find.err, "is: takes read or unread") || len(h.s.panes.emails.filtered) != all {
		t.Fatalf("a bad query: %d of %d shown\n%s", len(h.s.panes.emails.filtered), all, h.shown())
	}
	for range len("starred") {
		h.Press("backspace")
	}
	h.Type("read")
	if got := strings.Join(h.shownIDs(), " "); got != "e4" {
		t.Fatalf("is:read after the error shows [%s]", got)
	}
}

// TestSearchFromTheInboxList starts a search from the inbox pane: the
// message list gets the focus and what is typed goes into the search.
func TestSearchFromTheInboxList(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("shift+tab", "/")
	h.Type("qa-run")
	if h.s.Focus() != PaneEmails || !h.s.CapturesInput() || h.s.panes.emails.find.field.Value() != "qa-run" {
		t.Fatalf("focus %v, typing %v, typed %q", h.s.Focus(), h.s.CapturesInput(), h.s.panes.emails.find.field.Value())
	}
}

// TestPreparedIndexServesSearches checks that what arrives is prepared
// for searching in the background and found.
func TestPreparedIndexServesSearches(t *testing.T) {
	h := newHarness(t, 140, 37)
	live := model.Email{ID: "n1", From: "zed@example.net", Subject: "Zebra crossing", ReceivedAt: tuitest.Now(), HasContent: true, Text: "stripes"}
	h.svc.AddEmail(tuitest.DemoAddr, live)
	h.Send(feedNewEmail(tuitest.DemoAddr, live))
	h.search("stripes")
	if got := strings.Join(h.shownIDs(), " "); got != "n1" {
		t.Fatalf("live mail not found by its body: %q", got)
	}
}

// TestAllInboxesFollowChanges checks that the in:all list, a copy of every
// inbox's emails, shows a change made to one of them.
func TestAllInboxesFollowChanges(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.search("in:all")
	h.Press("end", "u")
	if m, _, _ := h.s.panes.emails.selected(); m.ID != "e4" || m.IsRead {
		t.Fatalf("the in:all row of %s still reads %v after u", m.ID, m.IsRead)
	}
	h.Send(feedNewEmail(tuitest.PlainAddr, model.Email{ID: "p9", Subject: "late", ReceivedAt: tuitest.Now()}))
	if got := h.shownIDs(); len(got) != 5 || got[0] != "p9" {
		t.Fatalf("new mail of another inbox is not listed first: %v", got)
	}
}
