package model

import (
	"testing"
	"time"
)

// TestChaosActiveAt: disabled and expired configs do nothing; an unparsable
// expiresAt never expires.
func TestChaosActiveAt(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		cfg  ChaosConfig
		want bool
	}{
		{ChaosConfig{Enabled: false}, false},
		{ChaosConfig{Enabled: true}, true},
		{ChaosConfig{Enabled: true, ExpiresAt: s("2029-12-31T23:59:59.999+00:00")}, false},
		{ChaosConfig{Enabled: true, ExpiresAt: s("2030-01-01T01:00:00+02:00")}, false},
		{ChaosConfig{Enabled: true, ExpiresAt: s("2030-01-01T00:00:01Z")}, true},
		{ChaosConfig{Enabled: true, ExpiresAt: s("next tuesday")}, true},
	} {
		if got := tc.cfg.ActiveAt(now); got != tc.want {
			t.Errorf("ActiveAt(%+v) = %v, want %v", tc.cfg, got, tc.want)
		}
	}
}
