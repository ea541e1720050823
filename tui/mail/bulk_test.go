package mail

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sandview/client"
	"sandview/tui/tuitest"
)

// confirmText is the question of the open confirmation ("" when none).
func (h *harness) confirmText() string {
	if h.ctx.Dialog() == nil {
		return ""
	}
	return strings.Join(strings.Fields(tuitest.Plain(h.ctx.Dialog().View(200, 40))), " ")
}

func TestMarkAndDeleteTheMarked(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("space", "x")
	if got := h.s.state.markedCount(); got != 2 || h.selected() != "e3" {
		t.Fatalf("space and x marked %d, cursor on %s; want 2 marked, the cursor moved on", got, h.selected())
	}
	if !strings.Contains(h.shown(), "2 marked") {
		t.Fatal("the title does not say how many are marked")
	}
	h.Press("d")
	if q := h.confirmText(); !strings.Contains(q, "Delete 2 marked emails on the server?") {
		t.Fatalf("the confirmation says %q", q)
	}
	h.Press("y")
	for _, id := range []string{"e1", "e2"} {
		if !h.svc.Called("deleteEmail demo@sandbox.test " + id) {
			t.Fatalf("%s not deleted: %v", id, h.svc.Calls())
		}
	}
	if h.svc.Called("deleteEmail demo@sandbox.test e3") || len(h.current().emails) != 2 || h.s.state.markedCount() != 0 {
		t.Fatalf("deleted too much, or marks left: %d emails, %d marked", len(h.current().emails), h.s.state.markedCount())
	}
	if !strings.Contains(h.shown(), "deleted 2 emails") {
		t.Fatalf("no count of what was deleted:\n%s", h.shown())
	}
}

// TestOneMarkedEmailIsNamed checks that the one marked email is what d
// deletes, named by its subject, even with the cursor on another.
func TestOneMarkedEmailIsNamed(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("space", "d")
	if q := h.confirmText(); h.selected() != "e2" || !strings.Contains(q, `Delete the email "Welcome to the sandbox"`) {
		t.Fatalf("cursor on %s; the confirmation says %q", h.selected(), q)
	}
	h.Press("y")
	if !h.svc.Called("deleteEmail demo@sandbox.test e1") || h.svc.Called("deleteEmail demo@sandbox.test e2") {
		t.Fatalf("deleted %v", h.svc.Calls())
	}
}

func TestMarkAllShownAndEscClearsMarksFirst(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.search("is:unread")
	h.Press("*")
	if got := h.s.state.markedCount(); got != 3 {
		t.Fatalf("* marked %d, want the 3 shown", got)
	}
	h.Press("*")
	if got := h.s.state.markedCount(); got != 0 {
		t.Fatalf("* again left %d marked", got)
	}
	h.Press("*", "esc")
	if h.s.state.markedCount() != 0 || !h.s.panes.emails.find.active() {
		t.Fatal("esc did not clear the marks before the search")
	}
	h.Press("esc")
	if h.s.panes.emails.find.active() || h.s.Focus() != PaneEmails {
		t.Fatal("the second esc did not clear the search")
	}
}

func TestDeleteAllMailOfTheInbox(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("D")
	if q := h.confirmText(); !strings.Contains(q, "Delete all 4 emails of demo@sandbox.test on the server? The inbox stays.") {
		t.Fatalf("the confirmation says %q", q)
	}
	h.Press("y")
	if n := strings.Count(strings.Join(h.svc.Calls(), "\n"), "deleteEmail demo@sandbox.test"); n != 4 {
		t.Fatalf("%d deletes, want 4", n)
	}
	if e := h.current(); len(e.emails) != 0 || e.info.EmailAddress != tuitest.DemoAddr {
		t.Fatal("the inbox is not empty, or went")
	}
}

func TestBulkFailureSaysHowManyWorked(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.svc.Fail(errors.New("denied"))
	h.Press("*", "d", "y")
	if len(h.current().emails) != 4 || !strings.Contains(h.shown(), "not deleted: denied") {
		t.Fatalf("a failed bulk delete: %d left\n%s", len(h.current().emails), h.shown())
	}
}

// TestRefusedDeleteSaysWhy: a delete the server refuses (a viewer's key
// on a shared box) says so by the server's reason, not as a request line
// the status cuts, and the email stays.
func TestRefusedDeleteSaysWhy(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.svc.Fail(&client.RefusedError{Reason: "delete email on demo@sandbox.test is not allowed for role viewer"})
	h.Press("d", "y")
	if len(h.current().emails) != 4 || !strings.Contains(h.shown(), "not deleted: delete email on demo@sandbox.test is not") {
		t.Fatalf("a refused delete: %d left\n%s", len(h.current().emails), h.shown())
	}
}

func TestMarkAllReadAndToggleTheMarked(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.Press("M")
	if q := h.confirmText(); !strings.Contains(q, "Mark 3 unread emails of demo@sandbox.test read on the server?") || h.svc.Called("markRead") {
		t.Fatalf("M did not ask first, naming the count: %q %v", q, h.svc.Calls())
	}
	h.Press("n")
	if h.svc.Called("markRead") || h.current().unread != 3 {
		t.Fatal("M answered no marked mail read")
	}
	h.Press("M", "y")
	for _, id := range []string{"e1", "e2", "e3"} {
		if !h.svc.Called("markRead demo@sandbox.test " + id) {
			t.Fatalf("%s not marked read: %v", id, h.svc.Calls())
		}
	}
	if h.current().unread != 0 || h.svc.Called("markRead demo@sandbox.test e4") {
		t.Fatalf("unread %d after M; a read email was marked again", h.current().unread)
	}
	h.Press("space", "space", "u")
	if h.current().unread != 2 || !strings.Contains(h.shown(), "marked 2 emails unread in this session") {
		t.Fatalf("u on two read marked emails: %d unread\n%s", h.current().unread, h.shown())
	}
}

func TestSaveTheMarkedAsEML(t *testing.T) {
	h := newHarness(t, 140, 37)
	h.svc.SetRaw("e2", []byte("Subject: two\r\n\r\nbody\r\n"))
	dir := t.TempDir()
	h.Press("space", "space", "s", "ctrl+u")
	h.Type(dir)
	h.Press("enter")
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	if len(files) != 2 || !strings.Contains(h.shown(), "saved 2 emails to "+dir) {
		t.Fatalf("saved %v\n%s", files, h.shown())
	}
}

func TestSaveAllAttachmentsAtOnce(t *testing.T) {
	h := newHarness(t, 140, 37)
	dir := t.TempDir()
	h.Press("S")
	if q := h.confirmText(); !strings.Contains(q, "Save 1 attachment of 1 email") {
		t.Fatalf("the prompt says %q", q)
	}
	h.Press("ctrl+u")
	h.Type(dir)
	h.Press("enter")
	data, err := os.ReadFile(filepath.Join(dir, "report.pdf"))
	if err != nil || string(data) != "%PDF-1.4" || !h.svc.Called("email demo@sandbox.test e1") {
		t.Fatalf("report.pdf: %q %v", data, err)
	}
	h.Press("j", "S")
	if h.ctx.Dialog() != nil || !strings.Contains(h.shown(), "no attachment to save") {
		t.Fatal("S on an email without attachments asked for a directory")
	}
}
