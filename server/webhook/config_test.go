package webhook

import (
	"testing"
	"time"

	"sandview/server/store/memory"
)

func TestRetryDelayScales(t *testing.T) {
	cfg, err := Config{TimeScale: 0.5, RetrySchedule: []time.Duration{0, time.Second, 4 * time.Second}, Store: memory.New()}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for attempt, want := range map[int]time.Duration{1: 0, 2: 500 * time.Millisecond, 3: 2 * time.Second, 7: 2 * time.Second} {
		if got := cfg.retryDelay(attempt); got != want {
			t.Errorf("attempt %d: %v, want %v", attempt, got, want)
		}
	}
	if _, err := (Config{MaxGlobal: -1, Store: memory.New()}).withDefaults(); err == nil {
		t.Error("negative limit accepted")
	}
	if _, err := (Config{}).withDefaults(); err == nil {
		t.Error("a config without a store accepted")
	}
}
