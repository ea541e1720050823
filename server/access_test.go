package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/server"
	"sandview/server/access"
	"sandview/server/core"
	"sandview/server/emailauth"
	"sandview/server/servertest"
)

// principalClient is a client of srv with the key of a new principal.
func principalClient(t testing.TB, srv *server.Server, id, name string, role access.Role) *api {
	return &servertest.Client{T: t, Srv: srv, Key: srv.PrincipalKey(access.Principal{ID: id, Name: name, Role: role})}
}

// auditLog starts a server whose log (audit trail included) is returned.
func auditLog(logs *servertest.SyncBuffer) func(*server.Config) {
	return func(cfg *server.Config) { cfg.Logger = slog.New(slog.NewTextHandler(logs, nil)) }
}

// firstID is the newest email's id in an inbox.
func firstID(t testing.TB, a *api, address string) string {
	t.Helper()
	list := a.Emails(address, false)
	if len(list) == 0 {
		t.Fatalf("inbox %s is empty", address)
	}
	return list[0].ID
}

// TestPrincipalsSeeOnlyTheirInboxes: a member sees and changes its own
// inboxes and the catch-all; another member's inbox answers as a
// nonexistent one on every route; the server's key still does everything.
func TestPrincipalsSeeOnlyTheirInboxes(t *testing.T) {
	var logs servertest.SyncBuffer
	srv, admin := servertest.StartAPI(t, withCatchAll, auditLog(&logs))
	alice := principalClient(t, srv, "SHA256:alice", "alice", access.RoleMember)
	bob := principalClient(t, srv, "SHA256:bob", "bob", access.RoleMember)
	mine := alice.CreatePlain(nil)
	theirs := bob.CreatePlain(nil)
	servertest.MustSend(t, srv, theirs.EmailAddress, servertest.SimpleMessage(theirs.EmailAddress, "bob's"))
	bobsMail := firstID(t, bob, theirs.EmailAddress)

	b := "/api/inboxes/" + url.PathEscape(theirs.EmailAddress)
	for _, r := range []struct{ method, path string }{
		{"GET", b + "/sync"}, {"GET", b + "/emails"}, {"GET", b + "/emails/" + bobsMail},
		{"GET", b + "/emails/" + bobsMail + "/raw"}, {"PATCH", b + "/emails/" + bobsMail + "/read"},
		{"DELETE", b + "/emails/" + bobsMail},
	} {
		alice.ExpectError(http.StatusNotFound, r.method, r.path, nil, "Inbox not found: "+theirs.EmailAddress)
	}
	alice.Expect(http.StatusNoContent, "DELETE", b, nil, nil) // as for a nonexistent inbox
	alice.ExpectError(http.StatusNotFound, "POST", "/api/test/emails", map[string]any{"to": theirs.EmailAddress}, "Inbox not found")
	alice.ExpectError(http.StatusBadRequest, "GET", "/api/events?inboxes="+theirs.InboxHash, nil, "No matching inbox hashes")
	if got := bob.Sync(theirs.EmailAddress).EmailCount; got != 1 || bob.Emails(theirs.EmailAddress, false)[0].IsRead {
		t.Fatalf("bob's inbox after alice's tries: %d emails (read: %v), want 1 unread", got, bob.Emails(theirs.EmailAddress, false)[0].IsRead)
	}

	// Her own and the catch-all are hers to read.
	servertest.MustSend(t, srv, mine.EmailAddress, servertest.SimpleMessage(mine.EmailAddress, "alice's"))
	alice.Expect(http.StatusCreated, "POST", "/api/test/emails", map[string]any{"to": catchAllAddress}, nil)
	if alice.Sync(mine.EmailAddress).EmailCount != 1 || alice.Sync(catchAllAddress).EmailCount != 1 {
		t.Fatal("alice does not see her mail or the catch-all's")
	}
	alice.ExpectError(http.StatusForbidden, "DELETE", "/api/inboxes/"+catchAllAddress, nil, "delete inbox on "+catchAllAddress+" is not allowed for role member")

	// Her delete-all takes her inboxes only.
	bob.CreatePlain(nil)
	var all model.DeleteAllResponse
	alice.Expect(http.StatusOK, "DELETE", "/api/inboxes", nil, &all)
	if all.Deleted != 1 {
		t.Fatalf("alice's delete-all deleted %d inboxes, want her 1", all.Deleted)
	}
	alice.ExpectError(http.StatusNotFound, "GET", "/api/inboxes/"+mine.EmailAddress+"/sync", nil, "Inbox not found")
	if bob.Sync(theirs.EmailAddress).EmailCount != 1 || admin.Sync(catchAllAddress).EmailCount != 1 {
		t.Fatal("alice's delete-all touched bob's inbox or the catch-all")
	}

	// The server's key and an admin principal see everything; the
	// server's key deletes bob's inbox.
	boss := principalClient(t, srv, "SHA256:boss", "boss", access.RoleAdmin)
	boss.Email(theirs.EmailAddress, bobsMail)
	admin.Email(theirs.EmailAddress, bobsMail)
	admin.Expect(http.StatusNoContent, "DELETE", b, nil, nil)
	bob.ExpectError(http.StatusNotFound, "GET", b+"/sync", nil, "Inbox not found")

	// A revoked key stops at once.
	srv.RevokePrincipal("SHA256:alice")
	alice.ExpectError(http.StatusUnauthorized, "GET", "/api/inboxes/"+catchAllAddress+"/sync", nil, "invalid API key")

	out := logs.String()
	for _, want := range []string{
		"event=refused user=alice fp=SHA256:alice role=member route=\"GET /api/inboxes/{email}/sync\" action=\"read inbox\" inbox=" + theirs.EmailAddress,
		"event=delete user=alice fp=SHA256:alice role=member inbox=* inboxes=1 emails=1",
		"event=delete user=api-key inbox=" + theirs.EmailAddress + " emails=1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the log has no line with %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, srv.PrincipalKey(access.Principal{ID: "SHA256:bob", Name: "bob"})) || strings.Contains(out, srv.APIKey()) {
		t.Errorf("a key is in the log:\n%s", out)
	}
}

// TestViewerAndSharedMail: a viewer reads the catch-all and marks its mail
// read but may not delete it, nor delete all; a member may delete it.
func TestViewerAndSharedMail(t *testing.T) {
	var logs servertest.SyncBuffer
	srv, admin := servertest.StartAPI(t, withCatchAll, auditLog(&logs))
	viewer := principalClient(t, srv, "SHA256:vic", "vic", access.RoleViewer)
	member := principalClient(t, srv, "SHA256:meg", "meg", access.RoleMember)
	servertest.MustSend(t, srv, catchAllAddress, servertest.SimpleMessage(catchAllAddress, "shared"))
	id := firstID(t, viewer, catchAllAddress)
	mail := "/api/inboxes/" + catchAllAddress + "/emails/" + id

	viewer.Expect(http.StatusNoContent, "PATCH", mail+"/read", nil, nil)
	viewer.ExpectError(http.StatusForbidden, "DELETE", mail, nil, "delete email on "+catchAllAddress+" is not allowed for role viewer")
	viewer.ExpectError(http.StatusForbidden, "DELETE", "/api/inboxes", nil, "delete all inboxes is not allowed for role viewer")
	if admin.Sync(catchAllAddress).EmailCount != 1 {
		t.Fatal("the viewer's refused delete deleted the mail")
	}
	own := viewer.CreatePlain(nil)
	viewer.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+own.EmailAddress, nil, nil)

	member.Expect(http.StatusNoContent, "DELETE", mail, nil, nil)
	admin.WaitForCount(catchAllAddress, 0)
	out := logs.String()
	for _, want := range []string{
		"event=refused user=vic fp=SHA256:vic role=viewer route=\"DELETE /api/inboxes/{email}/emails/{id}\" action=\"delete email\" inbox=" + catchAllAddress,
		"event=delete user=meg fp=SHA256:meg role=member inbox=" + catchAllAddress + " email=" + id + " emails=1",
		"event=delete user=vic fp=SHA256:vic role=viewer inbox=" + own.EmailAddress + " emails=0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the log has no line with %q:\n%s", want, out)
		}
	}
}

// TestPrincipalWebhooks: a member manages webhooks on its own inboxes
// only: not global ones, not the catch-all's, not another's, and it cannot
// move one onto another's inbox; a viewer changes none.
func TestPrincipalWebhooks(t *testing.T) {
	var logs servertest.SyncBuffer
	srv, admin := servertest.StartAPI(t, withCatchAll, loopbackWebhooks, auditLog(&logs))
	alice := principalClient(t, srv, "SHA256:alice", "alice", access.RoleMember)
	bob := principalClient(t, srv, "SHA256:bob", "bob", access.RoleMember)
	viewer := principalClient(t, srv, "SHA256:vic", "vic", access.RoleViewer)
	mine, theirs, viewers := alice.CreatePlain(nil), bob.CreatePlain(nil), viewer.CreatePlain(nil)
	create := model.CreateWebhookRequest{URL: "http://127.0.0.1:9/hook", Events: []string{model.EventEmailReceived}}
	hooks := func(address string) string { return "/api/inboxes/" + url.PathEscape(address) + "/webhooks" }

	alice.ExpectError(http.StatusForbidden, "POST", "/api/webhooks", create, "change webhooks is not allowed for role member")
	alice.ExpectError(http.StatusForbidden, "GET", "/api/webhooks", nil, "read webhooks is not allowed for role member")
	alice.ExpectError(http.StatusForbidden, "POST", hooks(catchAllAddress), create, "change webhooks on "+catchAllAddress+" is not allowed")
	alice.ExpectError(http.StatusNotFound, "POST", hooks(theirs.EmailAddress), create, "not found")
	viewer.ExpectError(http.StatusForbidden, "POST", hooks(viewers.EmailAddress), create, "is not allowed for role viewer")
	alice.Expect(http.StatusOK, "GET", "/api/webhooks/templates", nil, nil)

	var hers, his model.Webhook
	alice.Expect(http.StatusCreated, "POST", hooks(mine.EmailAddress), create, &hers)
	bob.Expect(http.StatusCreated, "POST", hooks(theirs.EmailAddress), create, &his)
	// Not onto bob's inbox, nor bob's webhook through hers.
	patch := map[string]any{"description": "moved"}
	alice.ExpectError(http.StatusNotFound, "PATCH", hooks(theirs.EmailAddress)+"/"+hers.ID, patch, "not found")
	alice.ExpectError(http.StatusNotFound, "PATCH", hooks(mine.EmailAddress)+"/"+his.ID, patch, "not found")
	alice.ExpectError(http.StatusNotFound, "DELETE", hooks(mine.EmailAddress)+"/"+his.ID, nil, "not found")
	var list model.WebhookList
	alice.Expect(http.StatusOK, "GET", hooks(mine.EmailAddress), nil, &list)
	if list.Total != 1 || list.Webhooks[0].ID != hers.ID {
		t.Fatalf("alice's webhooks %+v, want hers only", list)
	}
	alice.Expect(http.StatusOK, "PATCH", hooks(mine.EmailAddress)+"/"+hers.ID, patch, nil)
	alice.Expect(http.StatusNoContent, "DELETE", hooks(mine.EmailAddress)+"/"+hers.ID, nil, nil)
	admin.Expect(http.StatusOK, "GET", hooks(theirs.EmailAddress)+"/"+his.ID, nil, nil)
	admin.Expect(http.StatusCreated, "POST", "/api/webhooks", create, nil)

	out := logs.String()
	for _, action := range []string{"create", "update", "delete"} {
		want := "event=webhook user=alice fp=SHA256:alice role=member action=" + action + " id=" + hers.ID + " inbox=" + mine.EmailAddress
		if !strings.Contains(out, want) {
			t.Errorf("the log has no line with %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "event=webhook user=api-key action=create") {
		t.Errorf("the server key's webhook is not in the log:\n%s", out)
	}
}

// TestOwnershipSurvivesRestart: with a data directory an inbox stays its
// owner's across a restart (bbolt), and others still do not see it.
func TestOwnershipSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	start := func() *server.Server {
		srv, err := server.Start(context.Background(), server.Config{
			HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", DataDir: dir, Options: core.Options{APIKey: "k", Resolver: &emailauth.StaticResolver{}},
		})
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		return srv
	}
	srv := start()
	in := principalClient(t, srv, "SHA256:alice", "alice", access.RoleMember).CreatePlain(nil)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	srv = start()
	defer srv.Close()
	principalClient(t, srv, "SHA256:alice", "alice", access.RoleMember).Sync(in.EmailAddress)
	principalClient(t, srv, "SHA256:bob", "bob", access.RoleMember).
		ExpectError(http.StatusNotFound, "GET", "/api/inboxes/"+in.EmailAddress+"/sync", nil, "Inbox not found")
}

// TestRevokedPrincipalsStreamEnds: a principal's open event stream ends
// when its key is revoked, without the mail that arrives after.
func TestRevokedPrincipalsStreamEnds(t *testing.T) {
	srv := servertest.Start(t)
	key := srv.PrincipalKey(access.Principal{ID: "SHA256:alice", Name: "alice"})
	alice := &servertest.Client{T: t, Srv: srv, Key: key}
	in := alice.CreatePlain(nil)
	lines := rawStream(t, srv, key, "inboxes="+in.InboxHash)
	srv.RevokePrincipal("SHA256:alice")
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "after"))
	ended := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if strings.Contains(lines.Text(), in.InboxHash) {
				ended <- "the revoked stream sent " + lines.Text()
				return
			}
		}
		if err := lines.Err(); err != nil {
			ended <- "the stream failed instead of ending: " + err.Error()
			return
		}
		ended <- ""
	}()
	select {
	case problem := <-ended:
		if problem != "" {
			t.Fatal(problem)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the revoked principal's stream still runs")
	}
}
