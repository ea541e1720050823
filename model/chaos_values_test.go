package model

import (
	"strings"
	"testing"
	"time"
)

// TestChaosSettingsConfig: typed settings become the request the spec
// describes, and back.
func TestChaosSettingsConfig(t *testing.T) {
	now := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	s := ChaosSettings{Latency: "500ms-3s", Drop: "0.1", Reset: true, Error: "0.3", Permanent: true, Greylist: "2", Blackhole: true, For: "10m0s"}
	cfg, err := s.Config(now)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Enabled || *cfg.ExpiresAt != "2026-11-29T06:10:00Z" {
		t.Fatalf("enabled %v, expiresAt %v", cfg.Enabled, *cfg.ExpiresAt)
	}
	if l := cfg.Latency; l.MinDelayMs != 500 || l.MaxDelayMs != 3000 || !l.Jitter || l.Probability != 1 {
		t.Fatalf("latency %+v", *l)
	}
	if d := cfg.ConnectionDrop; d.Probability != 0.1 || d.Graceful {
		t.Fatalf("drop %+v", *d)
	}
	if e := cfg.RandomError; e.ErrorRate != 0.3 || strings.Join(e.ErrorTypes, ",") != "temporary,permanent" {
		t.Fatalf("error %+v", *e)
	}
	if g := cfg.Greylist; g.MaxAttempts != 2 || g.TrackBy != ChaosTrackIPSender || g.RetryWindowMs != 300000 {
		t.Fatalf("greylist %+v", *g)
	}
	if !cfg.Blackhole.Enabled || !cfg.ActiveAt(now) || cfg.ActiveAt(now.Add(11*time.Minute)) {
		t.Fatal("blackhole off, or the expiry not read")
	}
	if back := ChaosSettingsOf(cfg, now); back != s {
		t.Fatalf("settings of the config %+v, want %+v", back, s)
	}
	one, err := ChaosSettings{Latency: "2s"}.Config(now)
	if err != nil || one.Latency.MinDelayMs != 2000 || one.Latency.MaxDelayMs != 2000 || one.Latency.Jitter || one.ExpiresAt != nil {
		t.Fatalf("a single latency: %+v %v", one.Latency, err)
	}
}

// TestChaosSettingsRefuseWithTheRange: each bad value is refused with
// the range allowed.
func TestChaosSettingsRefuseWithTheRange(t *testing.T) {
	for _, c := range []struct {
		s    ChaosSettings
		want string
	}{
		{ChaosSettings{Latency: "61s"}, "from 0 to 60s"},
		{ChaosSettings{Latency: "3s-1s"}, "must not be above"},
		{ChaosSettings{Latency: "fast"}, "from 0 to 60s"},
		{ChaosSettings{Drop: "1.5"}, "from 0 to 1"},
		{ChaosSettings{Drop: "NaN"}, "from 0 to 1"},
		{ChaosSettings{Error: "-0.1"}, "from 0 to 1"},
		{ChaosSettings{Greylist: "0"}, "from 1 to 100"},
		{ChaosSettings{Greylist: "2", For: "0s"}, "from 1s to 168h"},
		{ChaosSettings{Permanent: true}, "goes with an error rate"},
		{ChaosSettings{For: "10m"}, "no kind switched on"},
	} {
		if _, err := c.s.Config(time.Now()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.s, err, c.want)
		}
	}
}

// TestChaosExpiryLayouts: the expiry is read in the layouts the server
// expires by; anything else never expires.
func TestChaosExpiryLayouts(t *testing.T) {
	now := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at     string
		active bool
	}{
		{"2026-11-29T05:59:59Z", false},
		{"2026-11-29T06:00:01.5+00:00", true},
		{"2026-11-29T05:00:00", false},
		{"2026-11-28", false},
		{"2026-11-30", true},
		{"next week", true},
	} {
		at := c.at
		if got := (ChaosConfig{Enabled: true, ExpiresAt: &at}).ActiveAt(now); got != c.active {
			t.Errorf("expiresAt %q: active %v, want %v", at, got, c.active)
		}
	}
	if (ChaosConfig{}).ActiveAt(now) {
		t.Error("a disabled config is active")
	}
}
