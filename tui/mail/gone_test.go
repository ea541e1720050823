package mail

import (
	"strings"
	"testing"

	"sandview/client"
	"sandview/tui/tuitest"
)

// TestOpeningAMailDeletedElsewhereDropsIt: the stream announces no
// deletion; a mail deleted by another client is opened, and the service's
// 404 for it (the read mark after the dwell) removes it from the list and
// closes the reader, with a status line.
func TestOpeningAMailDeletedElsewhereDropsIt(t *testing.T) {
	h := newHarness(t, 140, 37)
	rec := withTicks(h)
	h.svc.Fail(&client.EmailNotFoundError{ID: "e1"})
	h.Press("enter")
	if !h.s.panes.reader.Showing(tuitest.DemoAddr, "e1") {
		t.Fatalf("enter opened %q", h.s.panes.shown().id)
	}
	fireAll(h, rec)
	if _, ok := h.current().email("e1"); ok || h.s.panes.emails.lists(emailRef{tuitest.DemoAddr, "e1"}) {
		t.Fatal("the mail the server no longer holds is still listed")
	}
	if h.s.panes.shown().id == "e1" || h.s.Focus() != PaneEmails {
		t.Fatalf("the reader still shows the gone mail (%q, focus %v)", h.s.panes.shown().id, h.s.Focus())
	}
	if st := h.ctx.Status().Text; !strings.Contains(st, "deleted on the server") {
		t.Fatalf("status line %q", st)
	}
	if strings.Contains(h.shown(), "Welcome to the sandbox") {
		t.Fatalf("the gone mail is still on screen:\n%s", h.shown())
	}
}
