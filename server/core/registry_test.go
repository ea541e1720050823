package core

import (
	"fmt"
	"slices"
	"testing"

	"sandview/server/store"
)

// TestRegistryEvictsOldestFirstAndForgets: the registry's accounting picks
// the oldest email of the inbox, then the oldest of all, forgets an email
// anywhere in its lists, and gives every email id of a removed inbox.
func TestRegistryEvictsOldestFirstAndForgets(t *testing.T) {
	r := newRegistry(3, 100)
	a := &Inbox{Inbox: store.Inbox{Address: "a@x.test", Hash: "ha"}}
	b := &Inbox{Inbox: store.Inbox{Address: "b@x.test", Hash: "hb"}}
	for _, in := range []*Inbox{a, b} {
		if err := r.add(in); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	put := func(in *Inbox, size int64) []victim {
		n++
		victims, gone := r.reserve([]*liveEmail{{id: fmt.Sprintf("e%02d", n), inbox: in, size: size}})
		if len(gone) != 0 {
			t.Fatalf("gone: %v", gone)
		}
		return victims
	}
	ids := func(vs []victim) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.inbox.Hash+"/"+v.id)
		}
		return out
	}
	put(a, 10)                                                          // e01
	put(b, 10)                                                          // e02
	put(a, 10)                                                          // e03
	put(a, 10)                                                          // e04
	if got := ids(put(a, 10)); !slices.Equal(got, []string{"ha/e01"}) { // e05: a holds 3 at most
		t.Errorf("per-inbox victims %v", got)
	}
	if !r.forget("e04") || r.forget("e04") {
		t.Error("forget e04: not once")
	}
	// a: e03 e05; b: e02; total 30. 81 more bytes evict the two oldest overall.
	if got := ids(put(b, 81)); !slices.Equal(got, []string{"hb/e02", "ha/e03"}) {
		t.Errorf("total victims %v", got)
	}
	put(a, 5) // e07
	removed, ok := r.remove("ha")
	if !ok || !slices.Equal(removed, []string{"e05", "e07"}) {
		t.Errorf("remove a = %v, %v", removed, ok)
	}
	// Only b's 81 bytes are left: 19 more fit, 20 do not.
	if got := put(b, 19); len(got) != 0 {
		t.Errorf("victims with room left: %v", ids(got))
	}
	if got := ids(put(b, 1)); !slices.Equal(got, []string{"hb/e06"}) {
		t.Errorf("victims after remove %v", got)
	}
}

// TestRegistryWaitsForLoading: while the stored emails are accounted in
// the background, a reservation waits; the stored ones, handed over in any
// order, then count oldest first, ahead of the new one (the per-inbox
// limit evicts the oldest stored email).
func TestRegistryWaitsForLoading(t *testing.T) {
	r := newRegistry(2, 0)
	a := &Inbox{Inbox: store.Inbox{Address: "a@x.test", Hash: "ha"}}
	if err := r.add(a); err != nil {
		t.Fatal(err)
	}
	finish := r.loading()
	reserved := make(chan []victim)
	go func() {
		victims, _ := r.reserve([]*liveEmail{{id: "e03", inbox: a, size: 1}})
		reserved <- victims
	}()
	select {
	case v := <-reserved:
		t.Fatalf("a reservation went ahead of the loading (victims %v)", v)
	default:
	}
	finish([]*liveEmail{{id: "e02", inbox: a, size: 1}, {id: "e01", inbox: a, size: 1}})
	victims := <-reserved
	if len(victims) != 1 || victims[0].id != "e01" {
		t.Fatalf("victims %v, want the oldest stored email e01", victims)
	}
	if removed, _ := r.remove("ha"); !slices.Equal(removed, []string{"e02", "e03"}) {
		t.Errorf("emails after the reservation: %v", removed)
	}
}

// TestHeldIDGeneratorWaitsForStoredIDs: IDs wait for the stored ones and
// then come after them, even those from a clock ahead of this one.
func TestHeldIDGeneratorWaitsForStoredIDs(t *testing.T) {
	g, release := heldIDGenerator(1)
	issued := make(chan string)
	go func() { issued <- g.next() }()
	select {
	case id := <-issued:
		t.Fatalf("an ID (%s) before the stored ones were known", id)
	default:
	}
	ahead := fmt.Sprintf("%016x", uint64(1)<<62) + "00000000"
	release([]string{ahead})
	if id := <-issued; id <= ahead {
		t.Fatalf("ID %s does not sort after the stored %s", id, ahead)
	}
}
