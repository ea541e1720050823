package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"sandview/model"
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

// TestStreamMessageIsTheStoredMetadata: the stream message of a new email
// carries the metadata the API lists for it, sealed for an encrypted inbox
// and base64 for a plain one; an email that arrived before the stream
// opened is not sent.
func TestStreamMessageIsTheStoredMetadata(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	enc := a.CreateEncrypted(nil)
	plain := a.CreatePlain(nil)
	servertest.MustSend(t, srv, plain.EmailAddress, servertest.SimpleMessage(plain.EmailAddress, "before the stream"))
	stream := servertest.OpenStream(t, srv, enc.InboxHash, plain.InboxHash)
	for _, address := range []string{enc.EmailAddress, plain.EmailAddress} {
		servertest.MustSend(t, srv, address, servertest.SimpleMessage(address, "streamed"))
		ev := stream.NextNotification(t)
		var listed *model.EmailRecord
		for _, r := range a.Emails(address, false) {
			if r.ID == ev.EmailID {
				listed = &r
			}
		}
		if listed == nil || ev.InboxID != listed.InboxID {
			t.Fatalf("stream message %+v names no email of %s", ev, address)
		}
		got, _ := json.Marshal(ev.EncryptedMetadata)
		want, _ := json.Marshal(listed.EncryptedMetadata)
		if ev.Metadata != listed.Metadata || !bytes.Equal(got, want) || (ev.Metadata == "") == (ev.EncryptedMetadata == nil) {
			t.Errorf("%s: stream message %+v, listed %+v", address, ev, listed)
		}
	}
}
