package memory

import (
	"context"
	"maps"
	"slices"
	"strings"

	"sandview/server/store"
)

// LoadWebhookRecords implements store.WebhookRecords.
func (m *Store) LoadWebhookRecords(context.Context) (hooks, retries []store.Record, err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, nil, store.ErrClosed
	}
	return records(m.hooks), records(m.retries), nil
}

// records lists a map's records in key order.
func records(from map[string][]byte) []store.Record {
	out := make([]store.Record, 0, len(from))
	for _, k := range slices.Sorted(maps.Keys(from)) {
		out = append(out, store.Record{Key: k, Data: from[k]})
	}
	return out
}

// PutWebhookRecords implements store.WebhookRecords.
func (m *Store) PutWebhookRecords(_ context.Context, recs []store.Record) error {
	return m.records(func() {
		for _, r := range recs {
			m.hooks[r.Key] = slices.Clone(r.Data)
		}
	})
}

// DeleteWebhookRecord implements store.WebhookRecords.
func (m *Store) DeleteWebhookRecord(_ context.Context, id string) error {
	return m.records(func() {
		delete(m.hooks, id)
		prefix := store.RetryKey(id, "")
		maps.DeleteFunc(m.retries, func(k string, _ []byte) bool { return strings.HasPrefix(k, prefix) })
	})
}

// PutRetryRecord implements store.WebhookRecords.
func (m *Store) PutRetryRecord(_ context.Context, webhookID, deliveryID string, data []byte) error {
	return m.records(func() { m.retries[store.RetryKey(webhookID, deliveryID)] = slices.Clone(data) })
}

// DeleteRetryRecord implements store.WebhookRecords.
func (m *Store) DeleteRetryRecord(_ context.Context, webhookID, deliveryID string) error {
	return m.records(func() { delete(m.retries, store.RetryKey(webhookID, deliveryID)) })
}

// records makes a change to the webhook records under the lock.
func (m *Store) records(change func()) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return store.ErrClosed
	}
	change()
	return nil
}
