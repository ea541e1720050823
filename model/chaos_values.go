package model

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Chaos values as people type them (the CLI's flags and the TUI's chaos
// dialog read them the same way), each checked against the range the
// server allows (the chaos spec, section 3), and the expiry as
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

// ChaosExpiry is the instant ExpiresAt names (RFC 3339, or a date and
// time without a zone, or a date, both UTC); ok is false when there is
// none or it does not parse (the server then never expires the config).
func (c ChaosConfig) ChaosExpiry() (t time.Time, ok bool) {
	if c.ExpiresAt == nil {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, strings.TrimSpace(*c.ExpiresAt)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
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

// ChaosSettings are chaos settings as typed (the CLI's flags, the TUI's
// dialog): each kind with a value is switched on, "" leaves it off.
type ChaosSettings struct {
	Latency, Drop, Error, Greylist string
	// Permanent draws errors from the 5xx replies too (with Error);
	// Reset drops the connection abortively (with Drop).
	Permanent, Reset, Blackhole bool
	// For is how long chaos lasts ("" = until switched off).
	For string
}

// ChaosGreylistWindowMs is the retry window the settings give
// greylisting (the server's default, 5 minutes).
const ChaosGreylistWindowMs = 300000

// Config is the request the settings make at now: enabled, each kind
// given switched on, the others absent; an error names the bad value and
// the range allowed.
func (s ChaosSettings) Config(now time.Time) (ChaosConfig, error) {
	cfg := ChaosConfig{Enabled: true}
	if s.Latency != "" {
		l, err := ParseChaosLatency(s.Latency)
		if err != nil {
			return cfg, err
		}
		cfg.Latency = &l
	}
	if s.Drop != "" {
		p, err := ParseChaosProbability("drop", s.Drop)
		if err != nil {
			return cfg, err
		}
		cfg.ConnectionDrop = &ChaosConnectionDrop{Enabled: true, Probability: p, Graceful: !s.Reset}
	} else if s.Reset {
		return cfg, errors.New("reset goes with a drop probability")
	}
	if s.Error != "" {
		r, err := ParseChaosProbability("error", s.Error)
		if err != nil {
			return cfg, err
		}
		types := []string{ChaosErrorTemporary}
		if s.Permanent {
			types = append(types, ChaosErrorPermanent)
		}
		cfg.RandomError = &ChaosRandomError{Enabled: true, ErrorRate: r, ErrorTypes: types}
	} else if s.Permanent {
		return cfg, errors.New("permanent goes with an error rate")
	}
	if s.Greylist != "" {
		n, err := ParseChaosAttempts(s.Greylist)
		if err != nil {
			return cfg, err
		}
		cfg.Greylist = &ChaosGreylist{Enabled: true, MaxAttempts: float64(n), RetryWindowMs: ChaosGreylistWindowMs, TrackBy: ChaosTrackIPSender}
	}
	if s.Blackhole {
		cfg.Blackhole = &ChaosBlackhole{Enabled: true}
	}
	if s.For != "" {
		d, err := ParseChaosFor(s.For)
		if err != nil {
			return cfg, err
		}
		cfg.ExpiresAt = ChaosExpiresAt(now, d)
	}
	if cfg.Latency == nil && cfg.ConnectionDrop == nil && cfg.RandomError == nil && cfg.Greylist == nil && cfg.Blackhole == nil {
		return cfg, errors.New("no kind switched on: give a latency, drop, error, greylist or blackhole")
	}
	return cfg, nil
}

// ChaosSettingsOf are the settings that make a config again at now (the
// kinds switched on; For the time left, when it expires).
func ChaosSettingsOf(cfg ChaosConfig, now time.Time) ChaosSettings {
	var s ChaosSettings
	if !cfg.ActiveAt(now) {
		return s
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if l := cfg.Latency; l != nil && l.Enabled {
		s.Latency = ms(l.MaxDelayMs).String()
		if l.Jitter && l.MinDelayMs < l.MaxDelayMs {
			s.Latency = ms(l.MinDelayMs).String() + "-" + s.Latency
		}
	}
	if d := cfg.ConnectionDrop; d != nil && d.Enabled {
		s.Drop, s.Reset = num(d.Probability), !d.Graceful
	}
	if e := cfg.RandomError; e != nil && e.Enabled {
		s.Error = num(e.ErrorRate)
		for _, t := range e.ErrorTypes {
			s.Permanent = s.Permanent || t == ChaosErrorPermanent
		}
	}
	if g := cfg.Greylist; g != nil && g.Enabled {
		s.Greylist = num(g.MaxAttempts)
	}
	s.Blackhole = cfg.Blackhole != nil && cfg.Blackhole.Enabled
	if t, ok := cfg.ChaosExpiry(); ok {
		s.For = max(t.Sub(now).Round(time.Second), time.Second).String()
	}
	return s
}
