package core

import (
	"fmt"
	"testing"
	"time"

	"sandview/server/store"
)

// TestRegistryCachesInboxes: an address or a hash is registered once; a
// removed inbox is no longer held, and its address is free again.
func TestRegistryCachesInboxes(t *testing.T) {
	r := newRegistry()
	now := time.Unix(1000, 0)
	a := &Inbox{Inbox: store.Inbox{Address: "a@x.test", Hash: "ha", ExpiresAt: now.Add(time.Hour)}}
	if err := r.add(a); err != nil {
		t.Fatal(err)
	}
	if err := r.add(&Inbox{Inbox: store.Inbox{Address: "a@x.test", Hash: "hb"}}); err != errAddressTaken {
		t.Errorf("same address: %v", err)
	}
	if err := r.add(&Inbox{Inbox: store.Inbox{Address: "b@x.test", Hash: "ha"}}); err != errKeyTaken {
		t.Errorf("same hash: %v", err)
	}
	if in, ok := r.byAddr("a@x.test", now); !ok || in != a || !r.holds(a) {
		t.Fatalf("byAddr %v %v", in, ok)
	}
	if _, ok := r.byAddr("a@x.test", now.Add(time.Hour)); ok {
		t.Error("an expired inbox is served")
	}
	if !r.remove("ha") || r.remove("ha") || r.holds(a) {
		t.Error("remove: not once")
	}
	if _, ok := r.byAddr("a@x.test", now); ok {
		t.Error("a removed inbox is served")
	}
}

// TestIDGeneratorStartsPastStoredIDs: IDs come after the stored ones, even
// those from a clock ahead of this one.
func TestIDGeneratorStartsPastStoredIDs(t *testing.T) {
	ahead := fmt.Sprintf("%016x", uint64(1)<<62) + "00000000"
	g := newIDGenerator(1, []string{ahead})
	if id := g.next(); id <= ahead {
		t.Fatalf("ID %s does not sort after the stored %s", id, ahead)
	}
	if id := newIDGenerator(1, []string{""}).next(); len(id) != 24 {
		t.Fatalf("ID %q with none stored", id)
	}
}
