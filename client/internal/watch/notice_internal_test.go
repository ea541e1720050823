package watch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"sandview/model"
)

// TestInboxDeletedNoticeEndsTheWatchWhenTheHashLivesAgain plays the race
// of a deleted catch-all: the server creates it again (same address, so
// the same hash) before the watcher lists it after the deletion notice,
// and the listing succeeds. The watch still ends as gone, with the
// notice's reason, for the inbox it watched was deleted.
func TestInboxDeletedNoticeEndsTheWatchWhenTheHashLivesAgain(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := New(ctx, quietClient{}, Config{})
	in := &heldInbox{release: make(chan struct{})} // its listing succeeds: the hash lives again
	gone := make(chan error, 1)
	w := &watched{inbox: in, seen: map[string]bool{}, seeded: true,
		subs: map[int]Callbacks{0: {Deliver: func(model.Email) {}, Gone: func(err error) { gone <- err }}}}
	e.watched[in.Hash()] = w
	notice, err := json.Marshal(model.StreamNotice{Kind: model.NoticeInboxDeleted, InboxHash: in.Hash(),
		EmailAddress: in.Address(), Reason: model.DeleteReasonManual})
	if err != nil {
		t.Fatal(err)
	}
	e.streamer.handleNotice(ctx, string(notice))
	select {
	case err := <-gone:
		if err == nil || !strings.Contains(err.Error(), "deleted the inbox "+in.Address()) {
			t.Fatalf("gone because of %v, want the deletion notice", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher was not told the inbox is gone")
	}
	if e.current(w) {
		t.Fatal("the inbox is still watched")
	}
}

// TestChaosNoticeReachesTheSubscribers: a chaos notice for a watched
// inbox is handed, as sent, to each subscriber's Chaos; one for an
// inbox not watched reaches nobody.
func TestChaosNoticeReachesTheSubscribers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := New(ctx, quietClient{}, Config{})
	in := &heldInbox{release: make(chan struct{})}
	got := make(chan model.ChaosAction, 4)
	w := &watched{inbox: in, seen: map[string]bool{}, seeded: true, subs: map[int]Callbacks{
		0: {Deliver: func(model.Email) {}, Chaos: func(a model.ChaosAction) { got <- a }},
		1: {Deliver: func(model.Email) {}}, // no Chaos: skipped
	}}
	e.watched[in.Hash()] = w
	sent := model.ChaosAction{Type: model.ChaosTypeGreylist, Remote: "127.0.0.1", Sender: "app@x.test", Attempt: 1, MaxAttempts: 2}
	for _, hash := range []string{"not-watched", in.Hash()} {
		notice, err := json.Marshal(model.StreamNotice{Kind: model.NoticeChaos, InboxHash: hash, EmailAddress: in.Address(), Chaos: &sent})
		if err != nil {
			t.Fatal(err)
		}
		e.streamer.handleNotice(ctx, string(notice))
	}
	if len(got) != 1 {
		t.Fatalf("the subscriber was told %d chaos actions, want 1", len(got))
	}
	if a := <-got; a.Text() != "greylisted 127.0.0.1 <app@x.test>, attempt 1 of 2" {
		t.Fatalf("the subscriber was told %q", a.Text())
	}
}
