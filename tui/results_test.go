package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"sandview/model"
)

func TestLoadingIndicatorAndErrors(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	send(t, m, inboxesLoadedMsg{inboxes: fixtureInboxes()[1:]})
	send(t, m, inboxesLoadedMsg{inboxes: fixtureInboxes()})
	e, _ := m.store.find(demoAddr)
	e.loading = true
	m.inboxes.cursor = 0
	m.syncSelection()
	frame0 := plain(m)
	if !strings.Contains(frame0, "Loading and decrypting emails") {
		t.Fatalf("no progress indicator while loading:\n%s", frame0)
	}
	send(t, m, spinMsg{})
	if plain(m) == frame0 {
		t.Fatal("spinner did not move")
	}
	send(t, m, emailsLoadedMsg{address: demoAddr, err: errors.New("server unreachable")})
	if !strings.Contains(plain(m), "Could not load emails: server unreachable") {
		t.Fatal("load error not shown")
	}
	// Per-email failures: the list is shown and the failure reported.
	joined := errors.Join(errors.New("decryption failed"), errors.New("server key mismatch"))
	send(t, m, emailsLoadedMsg{address: demoAddr, emails: fixtureEmails(), err: joined})
	if len(e.emails) != 4 || !strings.Contains(plain(m), "2 emails could not be opened") {
		t.Fatalf("partial load not shown: %d\n%s", len(e.emails), plain(m))
	}
}

func TestResultErrorsAreShown(t *testing.T) {
	cases := []struct {
		msg  any
		want string
	}{
		{emailLoadedMsg{address: demoAddr, err: errors.New("email gone")}, "open email: email gone"},
		{markedReadMsg{address: demoAddr, id: "e1", err: errors.New("nope")}, "mark read failed: nope"},
		{inboxDeletedMsg{address: demoAddr, err: errors.New("denied")}, "delete inbox: denied"},
		{emailDeletedMsg{address: demoAddr, id: "e1", err: errors.New("denied")}, "delete email: denied"},
		{promptDoneMsg{err: errors.New("disk full")}, "disk full"},
		{inboxCreatedMsg{err: errors.New("quota")}, "created: quota"},
		{inboxImportedMsg{err: errors.New("bad file")}, "imported: bad file"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m, _ := newTestModel(t, 160, 40, true)
			send(t, m, c.msg)
			if !strings.Contains(plain(m), c.want) {
				t.Fatalf("view lacks %q:\n%s", c.want, plain(m))
			}
		})
	}
}

func TestMarkReadFailureRestoresUnread(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	send(t, m, markedReadMsg{address: demoAddr, id: "e4", err: errors.New("nope")})
	if em, _ := m.current().email("e4"); em.IsRead {
		t.Fatal("failed mark-read left the email read")
	}
}

func TestRawErrorShown(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "down", "enter", "5")
	if !strings.Contains(plain(m), "Could not fetch the raw source: raw not found") {
		t.Fatalf("raw error not shown:\n%s", plain(m))
	}
}

func TestLoadedEmailWithProblem(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, true)
	press(t, m, "tab", "enter")
	send(t, m, emailLoadedMsg{address: demoAddr, email: model.Email{ID: "e1", Problem: "decryption failed"}, err: errors.New("decryption failed")})
	view := plain(m)
	if !strings.Contains(view, "DECRYPTION FAILED") || !strings.Contains(view, "could not be opened") {
		t.Fatalf("problem not loud:\n%s", view)
	}
}
