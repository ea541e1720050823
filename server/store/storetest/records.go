package storetest

import (
	"context"
	"fmt"
	"testing"

	"sandview/server/store"
)

// RunWebhookRecords runs the suite of store.WebhookRecords, the webhook
// records of a store of one server (memory and bolt).
func RunWebhookRecords(t *testing.T, open func(t *testing.T) store.WebhookRecords) {
	ctx := context.Background()
	s := open(t)
	hooks := []store.Record{{Key: "wh1", Data: []byte(`{"id":"wh1"}`)}, {Key: "wh2", Data: []byte(`{"id":"wh2"}`)}}
	if err := s.PutWebhookRecords(ctx, hooks); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ hook, delivery string }{{"wh1", "d1"}, {"wh1", "d2"}, {"wh2", "d3"}, {"wh10", "d4"}} {
		if err := s.PutRetryRecord(ctx, r.hook, r.delivery, []byte(r.delivery)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteRetryRecord(ctx, "wh2", "d3"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRetryRecord(ctx, "wh2", "unknown"); err != nil {
		t.Fatalf("deleting an unknown retry: %v", err)
	}
	hooks[1].Data = []byte(`{"id":"wh2","enabled":false}`)
	if err := s.PutWebhookRecords(ctx, hooks[1:]); err != nil {
		t.Fatal(err)
	}
	// Deleting wh1 takes its retries, not those of wh10.
	if err := s.DeleteWebhookRecord(ctx, "wh1"); err != nil {
		t.Fatal(err)
	}
	gotHooks, gotRetries, err := s.LoadWebhookRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%s", gotHooks) != fmt.Sprintf("%s", hooks[1:]) {
		t.Errorf("webhooks %s, want %s", gotHooks, hooks[1:])
	}
	if want := []store.Record{{Key: store.RetryKey("wh10", "d4"), Data: []byte("d4")}}; fmt.Sprintf("%s", gotRetries) != fmt.Sprintf("%s", want) {
		t.Errorf("retries %s, want %s", gotRetries, want)
	}
}
