package bolt_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sandview/server/store"
	"sandview/server/store/bolt"
)

// enforce opens the store at path, enforces the limits and closes it.
func enforce(t *testing.T, path string, maxPerInbox int, maxBytes int64) []store.EmailKey {
	t.Helper()
	db, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	victims, err := db.EnforceLimits(context.Background(), maxPerInbox, maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	return victims
}

// TestBoltCountersFollowTheLogReplay: the counters the limits read are
// made again by a replay of the log after a crash, and a replay over a
// file that holds it already counts nothing twice.
func TestBoltCountersFollowTheLogReplay(t *testing.T) {
	path, kept, _ := crashCopy(t)
	wal, err := os.ReadFile(path + ".wal")
	if err != nil {
		t.Fatal(err)
	}
	size := email("h", 1).Size()
	if victims := enforce(t, path, len(kept), int64(len(kept))*size); len(victims) != 0 {
		t.Fatalf("after the replay, %d emails count more: %v", len(kept), victims)
	}
	if err := os.WriteFile(path+".wal", wal, 0o600); err != nil {
		t.Fatal(err)
	}
	if victims := enforce(t, path, len(kept), int64(len(kept))*size); len(victims) != 0 {
		t.Fatalf("after a second replay, %d emails count more: %v", len(kept), victims)
	}
	if victims := enforce(t, path, len(kept)-1, 0); !slices.Equal(victims, kept[:1]) {
		t.Fatalf("one over the limit: %v, want %v", victims, kept[:1])
	}
}

// TestBoltBuildsCountersOfAnEarlierFile: a file of the release before the
// counters (server/testdata/datadir-c2aaea9: one inbox with one email)
// gets them when it is opened, and keeps them.
func TestBoltBuildsCountersOfAnEarlierFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sandview.db")
	for _, name := range []string{"sandview.db", "sandview.db.wal"} {
		copyFile(t, filepath.Join("..", "..", "testdata", "datadir-c2aaea9", name), filepath.Join(dir, name))
	}
	db, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	inboxes, err := db.Inboxes(ctx)
	if err != nil || len(inboxes) != 1 {
		t.Fatalf("inboxes %+v %v", inboxes, err)
	}
	ids, err := db.IDs(ctx, inboxes[0].Hash)
	if err != nil || len(ids) != 1 {
		t.Fatalf("ids %v %v", ids, err)
	}
	if last, err := db.LastEmailID(ctx); err != nil || last != ids[0] {
		t.Fatalf("LastEmailID %q %v, want %q", last, err, ids[0])
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if victims := enforce(t, path, 1, 0); len(victims) != 0 {
		t.Fatalf("one email over a limit of one: %v", victims)
	}
	want := []store.EmailKey{{InboxHash: inboxes[0].Hash, ID: ids[0]}}
	if victims := enforce(t, path, 0, 1); !slices.Equal(victims, want) {
		t.Fatalf("over one byte: %v, want %v", victims, want)
	}
}
