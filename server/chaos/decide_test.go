package chaos

import (
	"context"
	"testing"
	"time"

	"sandview/model"
)

// draws returns the numbers given, in turn, then the last again.
func draws(values ...float64) func() float64 {
	i := 0
	return func() float64 {
		v := values[min(i, len(values)-1)]
		i++
		return v
	}
}

// passing is a greylister that lets every attempt through.
func passing(context.Context, string, time.Duration, int) (int, bool, error) { return 2, true, nil }

// TestDecideOrder: the first kind that fires decides, in the fixed order;
// a greylist pass goes on to the next kinds; probability 1 always fires.
func TestDecideOrder(t *testing.T) {
	env := Envelope{Inbox: "a@sandbox.test", Remote: "127.0.0.1", Sender: "app@example.org"}
	all := model.ChaosConfig{
		Enabled:        true,
		ConnectionDrop: &model.ChaosConnectionDrop{Enabled: true, Probability: 0.5, Graceful: true},
		RandomError:    &model.ChaosRandomError{Enabled: true, ErrorRate: 0.5, ErrorTypes: []string{model.ChaosErrorPermanent}},
		Blackhole:      &model.ChaosBlackhole{Enabled: true},
		Latency:        &model.ChaosLatency{Enabled: true, MinDelayMs: 100, MaxDelayMs: 300, Jitter: true, Probability: 1},
		Greylist:       &model.ChaosGreylist{Enabled: true, MaxAttempts: 2},
	}
	for _, tc := range []struct {
		name  string
		cfg   func(c model.ChaosConfig) model.ChaosConfig
		draws []float64
		want  string
	}{
		{"drop first", func(c model.ChaosConfig) model.ChaosConfig { return c }, []float64{0.5}, model.ChaosTypeConnectionDrop},
		{"error after a greylist pass", func(c model.ChaosConfig) model.ChaosConfig { return c }, []float64{0.9, 0.1, 0}, model.ChaosTypeRandomError},
		{"blackhole beats latency", func(c model.ChaosConfig) model.ChaosConfig { return c }, []float64{0.9, 0.9}, model.ChaosTypeBlackhole},
		{"latency last", func(c model.ChaosConfig) model.ChaosConfig { c.Blackhole = nil; return c }, []float64{0.9, 0.9, 0.5, 0.5}, model.ChaosTypeLatency},
		{"nothing fires", func(c model.ChaosConfig) model.ChaosConfig {
			c.Blackhole = nil
			c.Latency = &model.ChaosLatency{Enabled: true, Probability: 0}
			return c
		}, []float64{0.9, 0.9, 0.5}, ""},
	} {
		out, err := Decide(context.Background(), tc.cfg(all), env, draws(tc.draws...), passing)
		if err != nil || out.Action.Type != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.name, out.Action.Type, err, tc.want)
		}
	}
}

// TestDecideLatency: with jitter the delay runs from min up to max; without
// it, or with min >= max, it is max.
func TestDecideLatency(t *testing.T) {
	for _, tc := range []struct {
		l    model.ChaosLatency
		u    float64
		want int64
	}{
		{model.ChaosLatency{MinDelayMs: 1000, MaxDelayMs: 2000, Jitter: true}, 0, 1000},
		{model.ChaosLatency{MinDelayMs: 1000, MaxDelayMs: 2000, Jitter: true}, 0.9999, 1999},
		{model.ChaosLatency{MinDelayMs: 1000, MaxDelayMs: 2000, Jitter: false}, 0.5, 2000},
		{model.ChaosLatency{MinDelayMs: 5000, MaxDelayMs: 1000, Jitter: true}, 0.5, 1000},
	} {
		tc.l.Enabled, tc.l.Probability = true, 1
		out, _ := Decide(context.Background(), model.ChaosConfig{Enabled: true, Latency: &tc.l}, Envelope{}, draws(0, tc.u), passing)
		if out.Action.DelayMs != tc.want || out.Delay != time.Duration(tc.want)*time.Millisecond {
			t.Errorf("%+v at %v: %d ms, want %d", tc.l, tc.u, out.Action.DelayMs, tc.want)
		}
	}
}

// TestDecideGreylist: the key follows trackBy within the inbox, a null
// sender is never greylisted, a window of 0 is five minutes and
// maxAttempts is rounded up.
func TestDecideGreylist(t *testing.T) {
	env := Envelope{Inbox: "a@sandbox.test", Remote: "10.0.0.1", Sender: "App@Example.org"}
	var key string
	var window time.Duration
	var max int
	refuse := func(_ context.Context, k string, w time.Duration, m int) (int, bool, error) {
		key, window, max = k, w, m
		return 1, false, nil
	}
	for trackBy, want := range map[string]string{
		model.ChaosTrackIP:       "a@sandbox.test|ip|10.0.0.1",
		model.ChaosTrackSender:   "a@sandbox.test|sender|app@example.org",
		model.ChaosTrackIPSender: "a@sandbox.test|ip_sender|10.0.0.1|app@example.org",
	} {
		cfg := model.ChaosConfig{Enabled: true, Greylist: &model.ChaosGreylist{Enabled: true, MaxAttempts: 2.5, TrackBy: trackBy}}
		out, err := Decide(context.Background(), cfg, env, draws(0), refuse)
		if err != nil || out.Action.Type != model.ChaosTypeGreylist || out.Reply != GreylistReply || key != want || window != 5*time.Minute || max != 3 {
			t.Errorf("trackBy %s: %+v %v, key %q window %s max %d", trackBy, out, err, key, window, max)
		}
	}
	env.Sender = ""
	cfg := model.ChaosConfig{Enabled: true, Greylist: &model.ChaosGreylist{Enabled: true, MaxAttempts: 2}}
	if out, _ := Decide(context.Background(), cfg, env, draws(0), refuse); out.Applied() {
		t.Errorf("a null sender was greylisted: %+v", out)
	}
}
