package store

import "context"

// WebhookRecords keeps the webhooks of a server that runs alone (memory
// and bolt implement it; a Shared store keeps Webhooks instead), with
// their deliveries waiting for a retry, each as a record in the webhook
// engine's own encoding: the store does not look inside.
type WebhookRecords interface {
	// LoadWebhookRecords returns every webhook record and every retry
	// record.
	LoadWebhookRecords(ctx context.Context) (hooks, retries []Record, err error)
	// PutWebhookRecords adds or replaces webhook records (by Key, the
	// webhook's id) in one write.
	PutWebhookRecords(ctx context.Context, recs []Record) error
	// DeleteWebhookRecord removes a webhook's record and its retries.
	DeleteWebhookRecord(ctx context.Context, id string) error
	// PutRetryRecord adds or replaces a retry of a webhook.
	PutRetryRecord(ctx context.Context, webhookID, deliveryID string, data []byte) error
	// DeleteRetryRecord removes a retry; an unknown one is not an error.
	DeleteRetryRecord(ctx context.Context, webhookID, deliveryID string) error
}

// Record is one record of WebhookRecords.
type Record struct {
	Key  string
	Data []byte
}

// RetryKey is the key of a webhook's retry: a webhook's retries share the
// prefix of its id and a slash.
func RetryKey(webhookID, deliveryID string) string { return webhookID + "/" + deliveryID }
