package mail

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"sandview/model"
	"sandview/theme"
	"sandview/tui/feed"
	"sandview/tui/tuitest"
)

// burst is n new unread emails to address in arrival order, some of them
// received at the same second (as a burst is), the third a repeat of the
// first.
func burst(address string, n int) []feed.NewEmailMsg {
	var out []feed.NewEmailMsg
	for i := range n {
		m := mailTo(address, fmt.Sprintf("b%03d", i), fmt.Sprintf("Burst %d", i), time.Duration(i/3)*time.Second)
		out = append(out, feedNewEmail(address, m))
	}
	out[2] = out[0]
	return out
}

func listedIDs(e *inboxEntry) []string {
	var ids []string
	for _, m := range e.emails {
		ids = append(ids, m.ID)
	}
	return ids
}

// TestABatchIsAsMailOneByOne delivers a burst as one batch of the feed
// and, to another screen, one email at a time: the lists are the same
// (nothing lost, nothing reordered, the repeat listed once), the cursor
// is on the newest mail, nothing was marked read, and mail of another
// inbox in the same batch lands in its inbox.
func TestABatchIsAsMailOneByOne(t *testing.T) {
	mails := burst(tuitest.PlainAddr, 120)
	batched, single := newHarness(t, 140, 37), newHarness(t, 140, 37)
	for _, h := range []*harness{batched, single} {
		h.Press("shift+tab", "j", "tab")
		if h.current().info.EmailAddress != tuitest.PlainAddr {
			t.Fatalf("the plain inbox is not selected: %s", h.current().info.EmailAddress)
		}
	}
	other := feedNewEmail(tuitest.DemoAddr, mailTo(tuitest.DemoAddr, "other", "For the demo inbox", time.Hour))
	batched.Send(feed.NewEmailsMsg{Emails: append(slices.Clone(mails), other)})
	for _, m := range mails {
		single.Send(m)
	}
	single.Send(other)
	got, want := listedIDs(batched.current()), listedIDs(single.current())
	if len(got) != 119 || !slices.Equal(got, want) {
		t.Fatalf("the batch listed %d emails %v,\none at a time %d %v", len(got), got, len(want), want)
	}
	if batched.selected() != "b119" {
		t.Fatalf("the cursor is on %q, not on the newest mail of the batch", batched.selected())
	}
	if batched.current().unread != 119 || batched.svc.Called("markRead") {
		t.Fatalf("the batch changed read state: %d unread, calls %v", batched.current().unread, batched.svc.Calls())
	}
	demo, _ := batched.s.state.find(tuitest.DemoAddr)
	if _, ok := demo.email("other"); !ok {
		t.Fatal("the mail for another inbox in the same batch was lost")
	}
	for _, id := range got {
		if !batched.current().fresh[id] {
			t.Fatalf("%s is not flagged new", id)
		}
	}
}

// TestCursorMovedStaysInABatch: once the user moved the cursor, a batch
// of new mail does not move it.
func TestCursorMovedStaysInABatch(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("j")
	was := h.selected()
	h.Send(feed.NewEmailsMsg{Emails: burst(tuitest.DemoAddr, 30)})
	if h.selected() != was {
		t.Fatalf("a batch moved the cursor from %q to %q", was, h.selected())
	}
}

// TestRowCacheFollowsChanges changes each thing a row shows (read state,
// mark, the search's highlights, the theme, the width, the cursor, the
// focus) and checks that the list drawn with its cache is the list drawn
// from nothing, and that each change shows.
func TestRowCacheFollowsChanges(t *testing.T) {
	h := newHarness(t, 140, 37)
	l := h.s.panes.emails
	first := func() model.Email { return h.current().emails[0] }
	fresh := func() string {
		l.cache = rowCache{}
		return l.View()
	}
	check := func(what string, change func()) {
		t.Helper()
		before := l.View()
		change()
		got := l.View()
		if want := fresh(); got != want {
			t.Fatalf("after %s the cached list differs from the list drawn anew:\n%s\nwant\n%s", what, got, want)
		}
		if got == before {
			t.Fatalf("%s did not change the list", what)
		}
	}
	check("reading", func() { h.current().setRead(first().ID, !first().IsRead) })
	check("marking", func() { h.current().toggleMark(first().ID) })
	check("a search", func() { h.search("e") })
	check("another theme", func() { h.ctx.Theme = theme.New(!h.ctx.Theme.Dark, false) })
	check("another width", func() { h.s.SetSize(120, 37) })
	check("moving the cursor", func() { h.Press("j") })
	check("leaving the list", func() { l.SetFocus(false) })
	l.View()
	n := len(l.cache.rows)
	l.View()
	if len(l.cache.rows) != n || n == 0 {
		t.Fatalf("drawing the same list again rendered rows again: %d cached, then %d", n, len(l.cache.rows))
	}
}
