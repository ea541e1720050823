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
