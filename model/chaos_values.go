package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Chaos values as people type them (the CLI's flags and the TUI's chaos
// dialog read them the same way), each checked against the range the
// server allows (../shared/spec/chaos.md, section 3), and the expiry as
// both read it back.

// ChaosMaxDelay is the largest latency the server allows (maxDelayMs).
const ChaosMaxDelay = 60 * time.Second

// ParseChaosLatency reads a latency: one duration ("2s", both bounds)
// or a range "500ms-3s" (a delay drawn from it, with jitter). Bounds go
// from 0 to ChaosMaxDelay, the first not above the second.
func ParseChaosLatency(s string) (ChaosLatency, error) {
	s = strings.TrimSpace(s)
	lo, hi, isRange := strings.Cut(s, "-")
	if !isRange {
		hi = lo
	}
	minD, err := chaosDelay(s, lo)
	if err != nil {
		return ChaosLatency{}, err
	}
	maxD, err := chaosDelay(s, hi)
	if err != nil {
		return ChaosLatency{}, err
	}
	if minD > maxD {
		return ChaosLatency{}, fmt.Errorf("latency %q: the first bound must not be above the second", s)
	}
	return ChaosLatency{Enabled: true, MinDelayMs: float64(minD.Milliseconds()), MaxDelayMs: float64(maxD.Milliseconds()),
		Jitter: minD < maxD, Probability: 1}, nil
}

func chaosDelay(all, s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < 0 || d > ChaosMaxDelay {
		return 0, fmt.Errorf("latency %q: want a delay from 0 to 60s (2s) or a range (500ms-3s)", all)
	}
	return d, nil
}

// ParseChaosProbability reads a probability or a rate for what (as named
// in the error): a number from 0 to 1.
func ParseChaosProbability(what, s string) (float64, error) {
	p, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(p) || p < 0 || p > 1 {
		return 0, fmt.Errorf("%s %q: want a number from 0 to 1 (0.3)", what, s)
	}
	return p, nil
}

// ParseChaosAttempts reads greylisting's attempts: a whole number from 1
// to 100 (the attempt that passes counts: 2 refuses the first).
func ParseChaosAttempts(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > 100 {
		return 0, fmt.Errorf("greylist %q: want the attempt that passes, from 1 to 100 (2 refuses the first)", s)
	}
	return n, nil
}

// ParseChaosFor reads how long chaos lasts: a duration from 1s to 168h
// (an inbox lives no longer).
func ParseChaosFor(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < time.Second || d > MaxTTLSeconds*time.Second {
		return 0, fmt.Errorf("for %q: want a duration from 1s to 168h (10m)", s)
	}
	return d, nil
}

// ChaosExpiry is the instant ExpiresAt names; ok is false when there is
// none or it does not parse (the server then never expires the config).
func (c ChaosConfig) ChaosExpiry() (t time.Time, ok bool) {
	if c.ExpiresAt == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*c.ExpiresAt))
	return t, err == nil
}

// ActiveAt reports whether the config acts on mail at now: enabled and
// not expired.
func (c ChaosConfig) ActiveAt(now time.Time) bool {
	if !c.Enabled {
		return false
	}
	t, ok := c.ChaosExpiry()
	return !ok || !t.Before(now)
}

// ChaosExpiresAt is the ExpiresAt of chaos that lasts d from now, in
// RFC 3339.
func ChaosExpiresAt(now time.Time, d time.Duration) *string {
	s := now.Add(d).UTC().Format(time.RFC3339)
	return &s
}
