package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"sandview/server/store"
)

// testWebhooks: webhooks are numbered in creation order and kept with
// their records; every change moves the version; deleting a webhook or
// its inbox drops its queued deliveries.
func testWebhooks(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	inbox := store.Inbox{Address: "w@sandbox.test", Hash: "hw", ExpiresAt: time.Now().Add(time.Hour).UTC(), CreatedAt: time.Unix(1, 0).UTC()}
	if err := s.PutInbox(ctx, inbox); err != nil {
		t.Fatal(err)
	}
	_, v0, err := s.LoadWebhooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	global := store.WebhookRow{ID: "whk_global", Record: []byte(`{"id":"whk_global"}`), Enabled: true}
	scoped := store.WebhookRow{ID: "whk_inbox", InboxHash: "hw", Record: []byte(`{"id":"whk_inbox"}`), Enabled: true}
	seqGlobal, err := s.SaveWebhook(ctx, global)
	if err != nil {
		t.Fatal(err)
	}
	seqScoped, err := s.SaveWebhook(ctx, scoped)
	if err != nil {
		t.Fatal(err)
	}
	if seqScoped <= seqGlobal {
		t.Fatalf("sequence numbers %d then %d, want increasing", seqGlobal, seqScoped)
	}
	global.Record = []byte(`{"id":"whk_global","v":2}`)
	if seq, err := s.SaveWebhook(ctx, global); err != nil || seq != seqGlobal {
		t.Fatalf("update: seq %d %v, want %d", seq, err, seqGlobal)
	}
	rows, v1, err := s.LoadWebhooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v1 == v0 {
		t.Error("the version did not move with the changes")
	}
	if len(rows) != 2 || rows[0].ID != "whk_global" || string(rows[0].Record) != string(global.Record) ||
		rows[1].ID != "whk_inbox" || rows[1].InboxHash != "hw" || !rows[1].Enabled {
		t.Fatalf("webhooks %+v", rows)
	}
	queue := []store.QueuedDelivery{
		{ID: "dlv_g", WebhookID: "whk_global", Attempt: 1, Pending: []byte("g")},
		{ID: "dlv_i", WebhookID: "whk_inbox", Attempt: 1, Pending: []byte("i")},
	}
	if err := s.EnqueueDeliveries(ctx, queue); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteInbox(ctx, "hw"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteWebhook(ctx, "whk_global"); err != nil {
		t.Fatal(err)
	}
	if rows, _, err := s.LoadWebhooks(ctx); err != nil || len(rows) != 0 {
		t.Fatalf("after deleting the webhook and the inbox: %+v %v, want none", rows, err)
	}
	if got, _, err := s.ClaimDeliveries(ctx, 10, time.Minute); err != nil || len(got) != 0 {
		t.Fatalf("deliveries of deleted webhooks: %+v %v, want none", got, err)
	}
}

// testDeliveryQueue: deliveries queued with an email's commit are refused
// with it at a stale version; a claim takes due deliveries once, until
// released; an attempt's outcome counts on the webhook, schedules a retry
// within the webhook's bound, and disables the webhook after failures in
// a row.
func testDeliveryQueue(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	if err := s.PutInbox(ctx, store.Inbox{Address: "q@sandbox.test", Hash: "hq", ExpiresAt: time.Now().Add(time.Hour).UTC()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveWebhook(ctx, store.WebhookRow{ID: "whk_1", Record: []byte("{}"), Enabled: true}); err != nil {
		t.Fatal(err)
	}
	_, version, err := s.LoadWebhooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var queue []store.QueuedDelivery
	for i := range 3 {
		queue = append(queue, store.QueuedDelivery{ID: fmt.Sprintf("dlv_%d", i), WebhookID: "whk_1", Attempt: 1, Pending: []byte{byte(i)}})
	}
	batch := store.Batch{Put: []*store.Email{Email("hq", 1)}, Deliveries: queue, CheckWebhooks: true, WebhookVersion: version + 1}
	if err := s.Commit(ctx, batch); !errors.Is(err, store.ErrStale) {
		t.Fatalf("commit at another webhook version: %v, want store.ErrStale", err)
	}
	if _, err := s.Email(ctx, store.EmailKey{InboxHash: "hq", ID: Email("hq", 1).ID}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("email of a refused commit: %v, want store.ErrNotFound", err)
	}
	batch.WebhookVersion = version
	if err := s.Commit(ctx, batch); err != nil {
		t.Fatal(err)
	}
	first, _, err := s.ClaimDeliveries(ctx, 2, time.Minute)
	if err != nil || len(first) != 2 {
		t.Fatalf("claim 2: %d %v", len(first), err)
	}
	rest, _, err := s.ClaimDeliveries(ctx, 5, time.Minute)
	if err != nil || len(rest) != 1 {
		t.Fatalf("claim the rest: %d %v, want 1", len(rest), err)
	}
	if d := rest[0]; d.WebhookID != "whk_1" || d.Attempt != 1 || len(d.Pending) != 1 {
		t.Fatalf("claimed %+v", d)
	}
	if err := s.ReleaseDelivery(ctx, rest[0].ID); err != nil {
		t.Fatal(err)
	}
	again, _, err := s.ClaimDeliveries(ctx, 5, time.Minute)
	if err != nil || len(again) != 1 || again[0].ID != rest[0].ID {
		t.Fatalf("claim after a release: %+v %v", again, err)
	}
	if err := s.DropDelivery(ctx, again[0].ID); err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Truncate(time.Millisecond)
	row, ok, err := s.FinishAttempt(ctx, store.Attempt{Delivery: first[0], At: at, OK: true, DisableAfter: 2})
	if err != nil || !ok || row.Stats.Total != 1 || row.Stats.Successful != 1 || !row.Stats.LastDeliveryOK || !row.Stats.LastDeliveryAt.Equal(at) {
		t.Fatalf("finish a success: %+v %v %v", row.Stats, ok, err)
	}
	retryAt := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	failed := store.Attempt{Delivery: first[1], At: at, RetryAt: retryAt, MaxRetries: 1, DisableAfter: 2}
	if row, _, err = s.FinishAttempt(ctx, failed); err != nil || row.Stats.Total != 1 || row.Stats.LastDeliveryOK {
		t.Fatalf("a failure to retry: %+v %v (counts when it ends)", row.Stats, err)
	}
	claimed, next, err := s.ClaimDeliveries(ctx, 5, time.Minute)
	if err != nil || len(claimed) != 0 || !next.Equal(retryAt) {
		t.Fatalf("claim before the retry is due: %+v next %v %v, want none and %v", claimed, next, err, retryAt)
	}
	testRetriesAndDisabling(t, s, at)
}

// testRetriesAndDisabling continues testDeliveryQueue: with one retry
// waiting, another failure ends at once (MaxRetries 1) and, the second in
// a row, disables the webhook; re-enabling it starts the streak over.
func testRetriesAndDisabling(t *testing.T, s store.Store, at time.Time) {
	ctx := context.Background()
	if err := s.EnqueueDeliveries(ctx, []store.QueuedDelivery{{ID: "dlv_x", WebhookID: "whk_1", Attempt: 1, Pending: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	claimed, _, err := s.ClaimDeliveries(ctx, 5, time.Minute)
	if err != nil || len(claimed) != 1 || claimed[0].ID != "dlv_x" {
		t.Fatalf("claim dlv_x: %+v %v", claimed, err)
	}
	a := store.Attempt{Delivery: claimed[0], At: at, RetryAt: time.Now().Add(time.Hour), MaxRetries: 1, DisableAfter: 1}
	row, ok, err := s.FinishAttempt(ctx, a)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if row.Stats.Total != 2 || row.Stats.Failed != 1 || row.Stats.ConsecutiveFailures != 1 || row.Enabled {
		t.Fatalf("after a final failure: %+v enabled %v, want counted and disabled", row.Stats, row.Enabled)
	}
	// An attempt of a delivery no longer claimed changes nothing.
	if row, _, err = s.FinishAttempt(ctx, store.Attempt{Delivery: claimed[0], At: at, OK: true}); err != nil || row.Stats.Total != 2 {
		t.Fatalf("finish twice: %+v %v", row.Stats, err)
	}
	if _, err := s.SaveWebhook(ctx, store.WebhookRow{ID: "whk_1", Record: []byte("{}"), Enabled: true}); err != nil {
		t.Fatal(err)
	}
	rows, _, err := s.LoadWebhooks(ctx)
	if err != nil || len(rows) != 1 || !rows[0].Enabled || rows[0].Stats.ConsecutiveFailures != 0 || rows[0].Stats.Total != 2 {
		t.Fatalf("re-enabled: %+v %v, want enabled with the streak over and the stats kept", rows, err)
	}
}
