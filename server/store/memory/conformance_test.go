package memory_test

import (
	"testing"

	"sandview/server/store"
	"sandview/server/store/memory"
	"sandview/server/store/storetest"
)

// TestConformance runs the shared Store suite against the memory store.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return memory.New() })
}

// TestWebhookRecords runs the webhook records' suite against the memory
// store.
func TestWebhookRecords(t *testing.T) {
	storetest.RunWebhookRecords(t, func(*testing.T) store.WebhookRecords { return memory.New() })
}
