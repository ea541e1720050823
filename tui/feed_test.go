package tui

import (
	"context"
	"strings"
	"testing"

	"sandview/client"
	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/service"
	"sandview/tui/tuitest"
)

// TestFeedReachesTheScreens pushes what the client pushes through the
// fake's subscription, the same path as production: the queue, then the
// program reading it one message at a time.
func TestFeedReachesTheScreens(t *testing.T) {
	h := newHarness(t, 160, 40, true)
	ctx, cancel := context.WithCancel(context.Background())
	q, err := feed.Start(ctx, h.svc)
	if err != nil {
		t.Fatal(err)
	}
	sink := h.svc.Receiver()
	if sink == nil {
		t.Fatal("the feed did not subscribe")
	}
	sink.State(client.ConnState{Kind: client.StateLive})
	sink.NewEmail(tuitest.DemoAddr, model.Email{ID: "p1", From: "push@example.com", Subject: "Pushed live", ReceivedAt: tuitest.Now()})
	h.svc.AddEmail(tuitest.PlainAddr, model.Email{ID: "p2", From: "early@example.com", Subject: "Arrived before", ReceivedAt: tuitest.Now()})
	sink.InboxReady(tuitest.PlainAddr)
	cancel() // the program reads what was queued, then the feed ends
	h.Send(feedStartedMsg{queue: q})
	view := h.plain()
	for _, want := range []string{"live stream", "Pushed live", "1 new email in plain@sandbox.test"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	h.Press("shift+tab", "j")
	if !strings.Contains(h.plain(), "Arrived before") {
		t.Fatalf("the inbox that started delivering was not listed again:\n%s", h.plain())
	}
}

// TestFeedFailureShowsOffline checks that a feed that cannot start says so.
func TestFeedFailureShowsOffline(t *testing.T) {
	h := newHarness(t, 160, 40, true)
	_, err := feed.Start(context.Background(), service.FromClient(nil, nil))
	h.Send(feedStartedMsg{err: err})
	if !strings.Contains(h.plain(), "offline: "+client.ErrNoService.Error()) {
		t.Fatalf("feed failure not shown:\n%s", h.plain())
	}
}

// TestProgramStartsTheFeed checks that Init subscribes to the service.
func TestProgramStartsTheFeed(t *testing.T) {
	h := newHarness(t, 160, 40, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.app.runCtx = ctx // ended: the feed delivers nothing
	h.Run(h.app.Init())
	if !h.svc.Called("subscribe") {
		t.Fatalf("Init did not subscribe to the feed: %v", h.svc.Calls())
	}
}

// TestFeedDeletionLeavesTheList: an email another user deleted on the
// server (the feed's deletion notice) leaves the list at once, and the
// screen says so; a notice for an email no longer listed changes nothing.
func TestFeedDeletionLeavesTheList(t *testing.T) {
	h := newHarness(t, 160, 40, true)
	if !strings.Contains(h.plain(), "Read and old") {
		t.Fatalf("the fixture email is not listed:\n%s", h.plain())
	}
	ctx, cancel := context.WithCancel(context.Background())
	q, err := feed.Start(ctx, h.svc)
	if err != nil {
		t.Fatal(err)
	}
	sink := h.svc.Receiver()
	sink.EmailDeleted(tuitest.DemoAddr, "e4")
	sink.EmailDeleted(tuitest.DemoAddr, "e4") // told twice: gone already
	cancel()
	h.Send(feedStartedMsg{queue: q})
	view := h.plain()
	if strings.Contains(view, "Read and old") {
		t.Fatalf("the deleted email is still listed:\n%s", view)
	}
	if !strings.Contains(view, "removed 1 email deleted on the server") || !strings.Contains(view, "Welcome to the sand") {
		t.Fatalf("want the other emails and a note of the removal:\n%s", view)
	}
}
