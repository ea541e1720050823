package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"sandview/server/store"
	"sandview/server/store/pgtest"
	"sandview/server/store/postgres"
	"sandview/server/store/storetest"
)

var pg *pgtest.Server

func TestMain(m *testing.M) { pgtest.Main(m, &pg, pgtest.Options{}) }

// open opens n stores (replicas) on one new database.
func open(t testing.TB, n int) []*postgres.Store {
	t.Helper()
	url := pg.NewDatabase(t)
	var out []*postgres.Store
	for range n {
		s, err := postgres.Open(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		out = append(out, s)
	}
	return out
}

// terminate drops every other connection to the stores' database.
func terminate(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
}

// TestListenSurvivesLostConnections: while one replica commits emails, the
// other's connections are cut three times; it reports every email once.
func TestListenSurvivesLostConnections(t *testing.T) {
	ctx := context.Background()
	url := pg.NewDatabase(t)
	var stores []*postgres.Store
	for range 2 {
		s, err := postgres.Open(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	writer, reader := stores[0], stores[1]
	if err := writer.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	resyncs := 0
	if err := reader.Listen(ctx, func(n store.Notice) {
		mu.Lock()
		defer mu.Unlock()
		switch n.Kind {
		case store.NoticeEmail:
			seen[n.Key.ID]++
		case store.NoticeResync:
			resyncs++
		}
	}); err != nil {
		t.Fatal(err)
	}
	const total = 300
	for i := range total {
		e := &store.Email{ID: fmt.Sprintf("%016x", i), InboxHash: "h", ReceivedAt: time.Now(), Metadata: []byte("{}")}
		for {
			err := writer.Commit(ctx, store.Batch{Put: []*store.Email{e}})
			if err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond) // the writer's pooled connection was cut too
		}
		if i%100 == 50 {
			terminate(t, url)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n, r := len(seen), resyncs
		mu.Unlock()
		if n == total && r >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d emails reported, %d resyncs", n, total, r)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	for id, n := range seen {
		if n != 1 {
			t.Errorf("email %s reported %d times", id, n)
		}
	}
}

// TestLeadershipIsExclusive: of two replicas one leads; when its
// connection is lost the other takes over.
func TestLeadershipIsExclusive(t *testing.T) {
	ctx := context.Background()
	stores := open(t, 2)
	first, err := stores[0].Lead(ctx)
	if err != nil || !first {
		t.Fatalf("first replica: %v %v", first, err)
	}
	if second, err := stores[1].Lead(ctx); err != nil || second {
		t.Fatalf("second replica leads too: %v %v", second, err)
	}
	if again, err := stores[0].Lead(ctx); err != nil || !again {
		t.Fatalf("the leader lost its lead: %v %v", again, err)
	}
	_ = stores[0].Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if took, err := stores[1].Lead(ctx); err == nil && took {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the second replica never took over")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDeliveriesClaimedOnce: two replicas claiming concurrently take each
// queued delivery once; finishing counts stats once and a stale version
// refuses a commit.
func TestDeliveriesClaimedOnce(t *testing.T) {
	ctx := context.Background()
	stores := open(t, 2)
	if _, err := stores[0].SaveWebhook(ctx, store.WebhookRow{ID: "whk_1", Record: []byte("{}"), Enabled: true}); err != nil {
		t.Fatal(err)
	}
	_, version, err := stores[1].LoadWebhooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stores[0].PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var queue []store.QueuedDelivery
	for i := range 50 {
		queue = append(queue, store.QueuedDelivery{ID: fmt.Sprintf("dlv_%d", i), WebhookID: "whk_1", Attempt: 1, Pending: []byte("{}")})
	}
	batch := store.Batch{Put: []*store.Email{{ID: "1", InboxHash: "h", Metadata: []byte("{}")}}, Deliveries: queue, CheckWebhooks: true, WebhookVersion: version - 1}
	if err := stores[1].Commit(ctx, batch); !errors.Is(err, store.ErrStale) {
		t.Fatalf("commit at an old webhook version: %v", err)
	}
	batch.WebhookVersion = version
	if err := stores[1].Commit(ctx, batch); err != nil {
		t.Fatal(err)
	}
	claimed := make([][]store.QueuedDelivery, 2)
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() {
			for range 10 {
				got, _, err := s.ClaimDeliveries(ctx, 7, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				claimed[i] = append(claimed[i], got...)
			}
		})
	}
	wg.Wait()
	owner := map[string]int{}
	for i, list := range claimed {
		for _, d := range list {
			if prev, dup := owner[d.ID]; dup {
				t.Fatalf("%s claimed by %d and %d", d.ID, prev, i)
			}
			owner[d.ID] = i
		}
	}
	if len(owner) != len(queue) {
		t.Fatalf("%d of %d deliveries claimed", len(owner), len(queue))
	}
	// Either replica may have claimed all of them.
	holder := 0
	if len(claimed[0]) == 0 {
		holder = 1
	}
	d := claimed[holder][0]
	// The replica that does not hold the claim changes nothing.
	if row, ok, err := stores[1-holder].FinishAttempt(ctx, store.Attempt{Delivery: d, At: time.Now(), OK: true}); err != nil || !ok || row.Stats.Total != 0 {
		t.Fatalf("finish by another replica: %+v %v %v", row.Stats, ok, err)
	}
	row, ok, err := stores[holder].FinishAttempt(ctx, store.Attempt{Delivery: d, At: time.Now(), OK: true})
	if err != nil || !ok || row.Stats.Total != 1 || row.Stats.Successful != 1 {
		t.Fatalf("finish: %+v %v %v", row.Stats, ok, err)
	}
}

// TestSecretsAgree: replicas starting together keep one secret.
func TestSecretsAgree(t *testing.T) {
	stores := open(t, 4)
	values := make([]string, len(stores))
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() {
			v, _, err := s.Secret(context.Background(), "k", func() ([]byte, error) { return []byte(fmt.Sprint(i)), nil })
			if err != nil {
				t.Error(err)
			}
			values[i] = string(v)
		})
	}
	wg.Wait()
	for _, v := range values {
		if v != values[0] {
			t.Fatalf("replicas hold different secrets: %q", values)
		}
	}
}

// TestGroupedCommitsFailAlone: commits made at the same time share a
// transaction; one into an unknown inbox fails alone and the others are
// stored.
func TestGroupedCommitsFailAlone(t *testing.T) {
	ctx := context.Background()
	db := open(t, 1)[0]
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	const n = 64
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			hash := "h"
			if i%8 == 0 {
				hash = "unknown"
			}
			e := &store.Email{ID: fmt.Sprintf("%04d", i), InboxHash: hash, Metadata: []byte("{}")}
			errs[i] = db.Commit(ctx, store.Batch{Put: []*store.Email{e}})
		})
	}
	wg.Wait()
	want := 0
	for i, err := range errs {
		if i%8 == 0 {
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("commit %d into an unknown inbox: %v, want ErrNotFound", i, err)
			}
			continue
		}
		want++
		if err != nil {
			t.Errorf("commit %d: %v", i, err)
		}
	}
	ids, err := db.IDs(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != want {
		t.Fatalf("%d emails stored, want %d", len(ids), want)
	}
}

// TestConformance runs the shared Store suite against PostgreSQL.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, 1)[0] })
}
