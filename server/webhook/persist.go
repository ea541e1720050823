package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"sandview/server/store"
)

// pending is a delivery waiting for its next attempt.
type pending struct {
	WebhookID   string    `json:"webhookId"`
	EventID     string    `json:"eventId"`
	DeliveryID  string    `json:"deliveryId"`
	EventType   string    `json:"eventType"`
	Body        []byte    `json:"body"`
	ContentType string    `json:"contentType"`
	Attempt     int       `json:"attempt"` // number of the next attempt, from 1
	Due         time.Time `json:"due"`
	Seq         uint64    `json:"seq"` // creation order, from Engine.nextSeq
}

// diskStore keeps webhooks and pending retries in the server's store
// (Config.Records), as JSON records. A nil *diskStore is the in-memory
// mode: every method does nothing.
type diskStore struct {
	st store.WebhookRecords
}

// newDiskStore keeps the records in st; nil keeps nothing.
func newDiskStore(st store.WebhookRecords) *diskStore {
	if st == nil {
		return nil
	}
	return &diskStore{st: st}
}

// load reads every webhook and pending retry.
func (s *diskStore) load() ([]record, []pending, error) {
	if s == nil {
		return nil, nil, nil
	}
	hooks, retries, err := s.st.LoadWebhookRecords(context.Background())
	if err != nil {
		return nil, nil, fmt.Errorf("load webhooks: %w", err)
	}
	recs := make([]record, 0, len(hooks))
	for _, h := range hooks {
		var r record
		if err := json.Unmarshal(h.Data, &r); err != nil {
			return nil, nil, fmt.Errorf("load webhook %s: %w", h.Key, err)
		}
		recs = append(recs, r)
	}
	pend := make([]pending, 0, len(retries))
	for _, rt := range retries {
		var p pending
		if err := json.Unmarshal(rt.Data, &p); err != nil {
			return nil, nil, fmt.Errorf("load retry %s: %w", rt.Key, err)
		}
		pend = append(pend, p)
	}
	return recs, pend, nil
}

// putHooks writes webhook records.
func (s *diskStore) putHooks(recs ...record) error {
	if s == nil || len(recs) == 0 {
		return nil
	}
	out := make([]store.Record, len(recs))
	for i, r := range recs {
		data, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode webhook: %w", err)
		}
		out[i] = store.Record{Key: r.ID, Data: data}
	}
	if err := s.st.PutWebhookRecords(context.Background(), out); err != nil {
		return fmt.Errorf("save webhook: %w", err)
	}
	return nil
}

// deleteHook removes a webhook and its pending retries.
func (s *diskStore) deleteHook(id string) error {
	if s == nil {
		return nil
	}
	if err := s.st.DeleteWebhookRecord(context.Background(), id); err != nil {
		return fmt.Errorf("delete webhook %s: %w", id, err)
	}
	return nil
}

// putRetry writes a pending retry.
func (s *diskStore) putRetry(p pending) error {
	if s == nil {
		return nil
	}
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode retry: %w", err)
	}
	if err := s.st.PutRetryRecord(context.Background(), p.WebhookID, p.DeliveryID, data); err != nil {
		return fmt.Errorf("save retry %s: %w", p.DeliveryID, err)
	}
	return nil
}

// deleteRetry forgets a pending retry.
func (s *diskStore) deleteRetry(webhookID, deliveryID string) error {
	if s == nil {
		return nil
	}
	if err := s.st.DeleteRetryRecord(context.Background(), webhookID, deliveryID); err != nil {
		return fmt.Errorf("delete retry %s: %w", deliveryID, err)
	}
	return nil
}
