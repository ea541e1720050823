package mail

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// rowOf is the line of the view showing subject.
func rowOf(t *testing.T, view, subject string) string {
	t.Helper()
	for line := range strings.SplitSeq(view, "\n") {
		if strings.Contains(line, subject) {
			return line
		}
	}
	t.Fatalf("no row shows %q:\n%s", subject, view)
	return ""
}

// calls counts the service calls that start with prefix.
func calls(h *harness, prefix string) int {
	n := 0
	for _, c := range h.svc.Calls() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// TestNewMailRowsAreFilledWhenTheListRests: live mail comes with its
// metadata only; its row shows the sender and subject and marks the
// attachments and the verdict unknown (…), never "no attachments" or a
// verdict. Nothing is fetched while mail keeps coming; once the list
// rests, the rows in view are fetched in one batch and show what the
// mail holds. A row that cannot be fetched is not asked again.
func TestNewMailRowsAreFilledWhenTheListRests(t *testing.T) {
	var rec ticks
	ctx := tuitest.Context(true)
	ctx.Tick = rec.tick
	h := newHarnessOn(t, ctx, 140, 37, ui.Settings{})
	full := model.Email{
		ID: "n1", From: "Shop <shop@example.org>", To: []string{tuitest.DemoAddr}, Subject: "Order shipped",
		ReceivedAt: tuitest.Now(), HasContent: true, Text: "it is on its way", AuthResults: tuitest.PassingAuth(),
		Attachments: []model.Attachment{{Filename: "invoice.pdf", ContentType: "application/pdf", Size: 10, Content: []byte("%PDF-1.4 x")}},
	}
	h.svc.AddEmail(tuitest.DemoAddr, full)
	meta := func(e model.Email) model.Email {
		return model.Email{ID: e.ID, From: e.From, To: e.To, Subject: e.Subject, ReceivedAt: e.ReceivedAt}
	}
	h.Send(feedNewEmail(tuitest.DemoAddr, meta(full)))
	row := rowOf(t, h.shown(), "Order shipped")
	if !strings.Contains(row, "Shop") || strings.Count(row, unknownMark) != 2 || strings.Contains(row, "att") || strings.Contains(row, "pass") {
		t.Fatalf("the row of a mail whose content is not loaded claims what it does not know: %q", row)
	}
	// More mail while the first waits: nothing is fetched yet.
	h.Send(feedNewEmail(tuitest.DemoAddr, model.Email{ID: "lost", From: "x@example.org", Subject: "Deleted on the server", ReceivedAt: tuitest.Now().Add(-time.Second)}))
	if n := calls(h, "email "); n != 0 || len(rec.fills) != 1 {
		t.Fatalf("%d fetches while mail kept coming, %d waits for a rest (want one at a time)", n, len(rec.fills))
	}
	h.Send(rec.fills[0](tuitest.Now())) // the list moved since: it waits again
	if n := calls(h, "email "); n != 0 || len(rec.fills) != 2 {
		t.Fatalf("a wait the list moved during fetched %d emails, or did not wait again (%d waits)", n, len(rec.fills))
	}
	h.Send(rec.fills[1](tuitest.Now()))
	if calls(h, "email demo@sandbox.test n1") != 1 || calls(h, "email demo@sandbox.test lost") != 1 {
		t.Fatalf("the rows in view were not fetched once each: %q", h.svc.Calls())
	}
	row = rowOf(t, h.shown(), "Order shipped")
	if !strings.Contains(row, "+1att") || !strings.Contains(row, "pass") || strings.Contains(row, unknownMark) {
		t.Fatalf("the filled row does not show the mail's attachment and verdict: %q", row)
	}
	if row := rowOf(t, h.shown(), "Deleted on the server"); strings.Count(row, unknownMark) != 2 {
		t.Fatalf("a row that could not be fetched lost its unknown marks: %q", row)
	}
	// The list moves and rests again: the failed row is not asked again.
	fills := len(rec.fills)
	h.Press("j")
	h.Press("k")
	for _, fire := range rec.fills[fills:] {
		h.Send(fire(tuitest.Now()))
	}
	if n := calls(h, "email demo@sandbox.test lost"); n != 1 {
		t.Fatalf("the row that could not be fetched was asked %d times", n)
	}
}

// TestContentSearchFetchesNewMail: a search that needs content (a word of
// the body) cannot judge mail that came with its metadata only: the
// search line says content is loading, and once the list rests the mail
// is fetched and judged, in view or not.
func TestContentSearchFetchesNewMail(t *testing.T) {
	h := newHarness(t, 140, 12)
	h.search("parcel")
	for i := range 12 { // more than the rows in view
		id := fmt.Sprintf("b%02d", i)
		e := model.Email{ID: id, From: "Shop <shop@example.org>", To: []string{tuitest.DemoAddr}, Subject: "Order " + id,
			ReceivedAt: tuitest.Now().Add(time.Duration(i) * time.Second), HasContent: true, Text: "your order"}
		if i == 0 { // the oldest: out of view
			e.Text = "your parcel is on its way"
		}
		h.svc.AddEmail(tuitest.DemoAddr, e)
		h.Send(feedNewEmail(tuitest.DemoAddr, model.Email{ID: id, From: e.From, To: e.To, Subject: e.Subject, ReceivedAt: e.ReceivedAt}))
	}
	if v := h.shown(); !strings.Contains(v, "loading content…") || strings.Contains(v, "Order b00") {
		t.Fatalf("a content search over mail without content:\n%s", v)
	}
	h.rest()
	if v := h.shown(); strings.Contains(v, "loading content…") || !strings.Contains(v, "Order b00") || strings.Contains(v, "Order b01") {
		t.Fatalf("once the list rested, the search did not judge the new mail by its body:\n%s", v)
	}
}
