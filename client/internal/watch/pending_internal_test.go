package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"

	"sandview/model"
)

// heldInbox is an inbox whose fetches wait until released.
type heldInbox struct {
	release chan struct{}
	mu      sync.Mutex
	fetched []string
}

func (h *heldInbox) Hash() string    { return "h" }
func (h *heldInbox) Address() string { return "held@x.test" }
func (h *heldInbox) ListIDs(context.Context, func(string) bool) ([]string, map[string]model.Email, error) {
	return nil, nil, nil
}
func (h *heldInbox) Poll(context.Context) (Poll, error) { return Poll{}, nil }
func (h *heldInbox) OpenNotification(ev model.StreamEvent) (model.Email, error) {
	return model.Email{ID: ev.EmailID}, nil
}

func (h *heldInbox) Fetch(ctx context.Context, id string) (model.Email, bool, error) {
	select {
	case <-h.release:
	case <-ctx.Done():
		return model.Email{}, false, ctx.Err()
	}
	h.mu.Lock()
	h.fetched = append(h.fetched, id)
	h.mu.Unlock()
	return model.Email{ID: id, HasContent: true}, false, nil
}

// quietClient is a client that reports nothing.
type quietClient struct{}

func (quietClient) OpenStream(context.Context, []string) (io.ReadCloser, error) { return nil, io.EOF }
func (quietClient) ReportSyncError(error)                                       {}
func (quietClient) ReportStreamError(error)                                     {}
func (quietClient) ReportFallback(error)                                        {}
func (quietClient) InboxGone(error) bool                                        { return false }
func (quietClient) StreamRefused(error) bool                                    { return false }

// TestPendingNotificationsAreBounded holds every fetch: the stream's
// handler takes maxPendingNotifications notifications, and the next one
// waits for a delivery instead of starting another goroutine; every
// email is delivered once the fetches go on.
func TestPendingNotificationsAreBounded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := New(ctx, quietClient{}, Config{})
	in := &heldInbox{release: make(chan struct{})}
	delivered := make(chan string, maxPendingNotifications+1)
	e.watched["h"] = &watched{inbox: in, seen: map[string]bool{}, seeded: true,
		subs: map[int]Callbacks{0: {Deliver: func(m model.Email) { delivered <- m.ID }}}}
	event := func(id string) string {
		b, err := json.Marshal(model.StreamEvent{InboxID: "h", EmailID: id, Metadata: "e30"})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for i := range maxPendingNotifications {
		e.streamer.handleEvent(ctx, event(fmt.Sprint(i)))
	}
	if n := len(e.pending); n != maxPendingNotifications {
		t.Fatalf("%d notifications pending, want %d", n, maxPendingNotifications)
	}
	last := make(chan struct{})
	go func() {
		defer close(last)
		e.streamer.handleEvent(ctx, event("last"))
	}()
	in.release <- struct{}{} // one fetch goes on: room for the last one
	<-last
	close(in.release)
	got := map[string]bool{}
	for range maxPendingNotifications + 1 {
		got[<-delivered] = true
	}
	if len(got) != maxPendingNotifications+1 || !got["last"] {
		t.Fatalf("delivered %d distinct emails, want %d with the last", len(got), maxPendingNotifications+1)
	}
}
