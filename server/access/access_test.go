package access

import (
	"strings"
	"testing"
)

func TestParseRole(t *testing.T) {
	for in, want := range map[string]Role{"": RoleMember, "viewer": RoleViewer, " Member ": RoleMember, "ADMIN": RoleAdmin} {
		got, err := ParseRole(in)
		if err != nil || got != want {
			t.Errorf("ParseRole(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseRole("root"); err == nil || !strings.Contains(err.Error(), `"root"`) {
		t.Errorf("ParseRole(root) error = %v, want one naming it", err)
	}
}

func TestDecide(t *testing.T) {
	const me = "SHA256:me"
	viewer := Principal{ID: me, Role: RoleViewer}
	member := Principal{ID: me, Role: RoleMember}
	admin := Principal{ID: me, Role: RoleAdmin}
	none := Target{}
	own := Target{Inbox: true, Owner: me}
	other := Target{Inbox: true, Owner: "SHA256:other"}
	keyOwned := Target{Inbox: true} // created with the server's key
	catchAll := Target{Inbox: true, CatchAll: true}
	A, H, F := Allow, Hide, Forbid
	type row struct {
		act                    Action
		t                      Target
		viewer, member, admins Verdict
	}
	rows := []row{
		{ReadInbox, own, A, A, A}, {ReadInbox, catchAll, A, A, A}, {ReadInbox, other, H, H, A}, {ReadInbox, keyOwned, H, H, A},
		{MarkRead, own, A, A, A}, {MarkRead, catchAll, A, A, A}, {MarkRead, other, H, H, A},
		{DeleteEmail, own, A, A, A}, {DeleteEmail, catchAll, F, A, A}, {DeleteEmail, other, H, H, A},
		{DeleteInbox, own, A, A, A}, {DeleteInbox, catchAll, F, F, A}, {DeleteInbox, other, H, H, A},
		{DeleteAll, none, F, A, A},
		{CreateInbox, none, A, A, A},
		{SendTest, own, A, A, A}, {SendTest, catchAll, F, A, A}, {SendTest, other, H, H, A},
		{ReadWebhooks, none, F, F, A}, {ReadWebhooks, own, A, A, A}, {ReadWebhooks, catchAll, F, F, A}, {ReadWebhooks, other, H, H, A},
		{ChangeWebhooks, none, F, F, A}, {ChangeWebhooks, own, F, A, A}, {ChangeWebhooks, catchAll, F, F, A}, {ChangeWebhooks, other, H, H, A},
		{ReadService, none, A, A, A},
		{ReadChaos, own, A, A, A}, {ReadChaos, catchAll, A, A, A}, {ReadChaos, other, H, H, A},
		{ChangeChaos, own, F, A, A}, {ChangeChaos, catchAll, F, F, A}, {ChangeChaos, other, H, H, A},
	}
	for _, r := range rows {
		for _, c := range []struct {
			p    Principal
			want Verdict
		}{{viewer, r.viewer}, {member, r.member}, {admin, r.admins}} {
			if got := Decide(c.p, r.act, r.t); got != c.want {
				t.Errorf("Decide(%s, %s, %+v) = %s, want %s", c.p.Role, r.act, r.t, got, c.want)
			}
		}
	}
	// A principal without an ID owns nothing, and an unknown role has
	// no more than a viewer's rights.
	if got := Decide(Principal{Role: RoleMember}, ReadInbox, keyOwned); got != Hide {
		t.Errorf("a principal without an ID sees the key's inbox: %s", got)
	}
	if got := Decide(Principal{ID: me, Role: "root"}, DeleteEmail, catchAll); got != Forbid {
		t.Errorf("an unknown role deletes shared mail: %s", got)
	}
}

func TestKeyring(t *testing.T) {
	k := NewKeyring([]byte("0123456789abcdef0123456789abcdef"))
	a := Principal{ID: "SHA256:a", Name: "alice"}
	key := k.Key(a)
	if !strings.HasPrefix(key, KeyPrefix) || len(key) != len(KeyPrefix)+64 {
		t.Fatalf("key %q: want %s and 64 hex digits", key, KeyPrefix)
	}
	if again := k.Key(Principal{ID: a.ID, Name: "alice2", Role: RoleViewer}); again != key {
		t.Errorf("the key changed when the principal was registered again")
	}
	if p, ok := k.Lookup(key); !ok || p.Name != "alice2" || p.Role != RoleViewer {
		t.Errorf("Lookup = %+v, %v; want the updated alice", p, ok)
	}
	b := k.Key(Principal{ID: "SHA256:b"})
	if b == key {
		t.Errorf("two principals share a key")
	}
	if p, _ := k.Lookup(b); p.Role != RoleMember {
		t.Errorf("an empty role is %q, want member", p.Role)
	}
	other := NewKeyring([]byte("another secret, another process!"))
	if other.Key(a) == key {
		t.Errorf("the key does not depend on the secret")
	}
	k.Revoke(a.ID)
	if _, ok := k.Lookup(key); ok {
		t.Errorf("a revoked key still works")
	}
	if _, ok := k.Lookup(b); !ok {
		t.Errorf("revoking alice revoked b")
	}
	if _, ok := k.Lookup("not-a-key"); ok {
		t.Errorf("a stranger's key works")
	}
}
