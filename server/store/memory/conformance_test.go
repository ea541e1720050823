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
