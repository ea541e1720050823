package httpapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/servertest"
)

// TestStreamRefusesUnknownInboxes: a subscription that names no known
// inbox answers 400, as the reference deployment does; one that names a
// known inbox next to unknown ones streams the known one and logs the
// unknown ones.
func TestStreamRefusesUnknownInboxes(t *testing.T) {
	logs := &servertest.SyncBuffer{}
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	in := a.CreatePlain(nil)
	// The status first, so that a stream opened instead does not hang the
	// test.
	for _, hashes := range []string{"nope", "nope,also-nope"} {
		if status := streamStatus(t, srv, hashes); status != http.StatusBadRequest {
			t.Fatalf("stream of %s: status %d, want 400", hashes, status)
		}
	}
	a.ExpectError(http.StatusBadRequest, "GET", "/api/events?inboxes=nope", nil, "No matching inbox hashes")
	a.ExpectError(http.StatusBadRequest, "GET", "/api/events?inboxes=nope,also-nope", nil, "No matching inbox hashes")

	stream := servertest.OpenStream(t, srv, "unknown-hash-1", in.InboxHash, "unknown-hash-2")
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "streamed"))
	if ev := stream.NextNotification(t); ev.InboxID != in.InboxHash {
		t.Errorf("event for %q, want %q", ev.InboxID, in.InboxHash)
	}
	if text := logs.String(); !strings.Contains(text, "unknown-hash-1,unknown-hash-2") {
		t.Errorf("the unknown hashes are not named in the log:\n%s", text)
	}
}

// streamStatus opens the event stream for hashes and returns the status.
func streamStatus(t *testing.T, srv *server.Server, hashes string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL()+"/api/events?inboxes="+hashes, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
