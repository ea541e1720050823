package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// rawStream opens GET /api/events?query with key and returns its lines.
func rawStream(t *testing.T, srv *server.Server, key, query string) *bufio.Scanner {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL()+"/api/events?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("open stream %s: status %d", query, resp.StatusCode)
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return lines
}

// nextNotice reads lines up to the next sandview.notice message and
// returns its data.
func nextNotice(t *testing.T, lines *bufio.Scanner) model.StreamNotice {
	t.Helper()
	named := false
	for lines.Scan() {
		line := lines.Text()
		if line == "event: "+model.StreamNoticeEvent {
			named = true
			continue
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok && named {
			var n model.StreamNotice
			if err := json.Unmarshal([]byte(data), &n); err != nil {
				t.Fatalf("notice %q: %v", data, err)
			}
			return n
		}
		if line == "" {
			named = false
		}
	}
	t.Fatalf("the stream ended without a notice: %v", lines.Err())
	return model.StreamNotice{}
}

// TestDeletionNoticesOnlyWhenAskedFor: a stream opened with
// sandview=notices hears an email deleted and an inbox deleted; a stream
// without it (the official clients') gets nothing but its `data:`
// messages, as before.
func TestDeletionNoticesOnlyWhenAskedFor(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	plain := rawStream(t, srv, srv.APIKey(), "inboxes="+in.InboxHash)
	notices := rawStream(t, srv, srv.APIKey(), "inboxes="+in.InboxHash+"&"+model.StreamNoticesParam+"="+model.StreamNoticesValue)
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "doomed"))
	id := a.Emails(in.EmailAddress, false)[0].ID
	a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+in.EmailAddress+"/emails/"+id, nil, nil)

	want := model.StreamNotice{Kind: model.NoticeEmailDeleted, InboxHash: in.InboxHash, EmailAddress: in.EmailAddress, EmailID: id, Reason: model.DeleteReasonManual}
	if got := nextNotice(t, notices); got != want {
		t.Fatalf("notice %+v, want %+v", got, want)
	}
	// The plain stream: the first mail's message, then the second's, and
	// nothing between or before them but data lines and blank ones.
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "kept"))
	kept := a.Emails(in.EmailAddress, false)[0].ID
	for seen := 0; seen < 2 && plain.Scan(); {
		line := plain.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || strings.Contains(data, `"kind"`) {
			t.Fatalf("the stream without the opt-in sent %q", line)
		}
		var ev model.StreamEvent
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.IsNotification() {
			seen++
			if seen == 2 && ev.EmailID != kept {
				t.Fatalf("second message names %s, want %s", ev.EmailID, kept)
			}
		}
	}

	a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+in.EmailAddress, nil, nil)
	got := nextNotice(t, notices) // the kept email, then the inbox
	if got.Kind != model.NoticeEmailDeleted || got.EmailID != kept {
		t.Fatalf("notice %+v, want the kept email's deletion", got)
	}
	want = model.StreamNotice{Kind: model.NoticeInboxDeleted, InboxHash: in.InboxHash, EmailAddress: in.EmailAddress, Reason: model.DeleteReasonManual}
	if got := nextNotice(t, notices); got != want {
		t.Fatalf("notice %+v, want %+v", got, want)
	}
}
