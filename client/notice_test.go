package client_test

import (
	"context"
	"testing"
	"time"

	"sandview/client"
	"sandview/model"
	"sandview/server"
)

// TestIntegrationDeletionReachesOtherWatchers: two clients watch the
// catch-all; when one deletes an email, the other's monitor is told (the
// stream's deletion notice), as is a direct monitor's handler; deleting
// the inbox ends the watch as gone.
func TestIntegrationDeletionReachesOtherWatchers(t *testing.T) {
	const catchAll = "all@sandbox.test"
	srv, deleter := startServer(t, func(cfg *server.Config) { cfg.CatchAll = catchAll })
	watcher := newServerClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	mine, err := deleter.OpenPlainInbox(ctx, catchAll)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := watcher.OpenPlainInbox(ctx, catchAll)
	if err != nil {
		t.Fatal(err)
	}
	mon, err := watcher.WatchInboxes([]*client.Inbox{theirs})
	if err != nil {
		t.Fatal(err)
	}
	defer mon.Unsubscribe()
	emails, deleted, gone := make(chan model.Email, 4), make(chan string, 4), make(chan error, 1)
	mon.On(func(_ *client.Inbox, e model.Email) { emails <- e })
	mon.OnDeleted(func(_ *client.Inbox, id string) { deleted <- id })
	mon.OnGone(func(_ *client.Inbox, err error) { gone <- err })
	directDeleted := make(chan string, 4)
	direct, err := watcher.WatchAllDirect(client.MonitorHandlers{Deleted: func(_ *client.Inbox, id string) { directDeleted <- id }})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Unsubscribe()

	sendSMTP(t, srv, catchAll, "shared")
	var e model.Email
	select {
	case e = <-emails: // delivered: the watcher's stream is open
	case <-ctx.Done():
		t.Fatal("the watcher got no email")
	}
	if err := mine.DeleteEmail(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []chan string{deleted, directDeleted} {
		select {
		case id := <-ch:
			if id != e.ID {
				t.Fatalf("deleted %s, want %s", id, e.ID)
			}
		case <-ctx.Done():
			t.Fatal("the watcher was not told of the deletion")
		}
	}
	if err := mine.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-gone:
		if err == nil {
			t.Fatal("gone without a reason")
		}
	case <-ctx.Done():
		t.Fatal("the watcher was not told the inbox is gone")
	}
}
