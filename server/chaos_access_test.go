package server_test

import (
	"net/http"
	"strings"
	"testing"

	"sandview/server"
	"sandview/server/access"
	"sandview/server/servertest"
)

// TestChaosFollowsOwnership: on a shared box a member sets chaos on its
// own inboxes only, another's is answered as nonexistent, the catch-all's
// is an admin's; every change is in the audit trail.
func TestChaosFollowsOwnership(t *testing.T) {
	logs := &servertest.SyncBuffer{}
	srv := servertest.Start(t, withChaos, auditLog(logs), func(cfg *server.Config) { cfg.CatchAll = "qa@sandbox.test" })
	alice := principalClient(t, srv, "SHA256:alice", "alice", access.RoleMember)
	bob := principalClient(t, srv, "SHA256:bob", "bob", access.RoleMember)
	boss := principalClient(t, srv, "SHA256:boss", "boss", access.RoleAdmin)
	own := alice.CreatePlain(nil).EmailAddress
	body := map[string]any{"enabled": true, "blackhole": map[string]any{"enabled": true}}
	alice.Expect(http.StatusOK, "POST", chaosPath(own), body, nil)
	if status, data := bob.Do("POST", chaosPath(own), body); status != http.StatusNotFound || !strings.Contains(string(data), "Inbox not found") {
		t.Fatalf("bob sets alice's chaos: %d %s", status, data)
	}
	alice.Expect(http.StatusOK, "GET", chaosPath("qa@sandbox.test"), nil, nil)
	alice.Expect(http.StatusForbidden, "POST", chaosPath("qa@sandbox.test"), body, nil)
	alice.Expect(http.StatusForbidden, "DELETE", chaosPath("qa@sandbox.test"), nil, nil)
	boss.Expect(http.StatusOK, "POST", chaosPath("qa@sandbox.test"), body, nil)
	boss.Expect(http.StatusNoContent, "DELETE", chaosPath(own), nil, nil)
	for _, want := range []string{"event=chaos user=alice", "inbox=" + own, "event=chaos user=boss", "inbox=qa@sandbox.test", "event=refused user=alice"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("audit trail lacks %q:\n%s", want, logs.String())
		}
	}
}
