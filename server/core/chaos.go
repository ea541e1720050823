package core

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"sandview/model"
	"sandview/server/chaos"
)

// Chaos is the core's per-inbox fault injection: the configs in the
// store, their evaluation at the end of DATA, the counters.
type Chaos struct{ c *Core }

// Chaos returns the core's chaos.
func (c *Core) Chaos() Chaos { return Chaos{c} }

// Config returns the chaos config of the inbox hash, {"enabled": false}
// when it has none (chaos.md, section 2).
func (k Chaos) Config(ctx context.Context, hash string) (model.ChaosConfig, error) {
	c := k.c
	var cfg model.ChaosConfig
	data, err := c.store.ChaosConfig(ctx, hash)
	if err != nil || data == nil {
		return cfg, err
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return cfg, fmt.Errorf("decode the chaos config of %s: %w", hash, err)
	}
	return cfg, nil
}

// Set replaces the chaos config of the inbox hash (store.ErrNotFound
// when the store holds no such inbox).
func (k Chaos) Set(ctx context.Context, hash string, cfg model.ChaosConfig) error {
	c := k.c
	data, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("encode a chaos config: %w", err)
	}
	if err := c.store.PutChaosConfig(ctx, hash, data); err != nil {
		return fmt.Errorf("set the chaos config of %s: %w", hash, err)
	}
	return nil
}

// EventChaos is the bus event of an applied chaos action (Chaos set), for
// the watchers of the primary inbox on sandview's channel of the event
// stream; the webhook engine never sees it.
const EventChaos = "chaos"

// chaosCounters are the chaos metrics since start (chaos.md, section 5).
type chaosCounters struct {
	events, latencyMs, errors, drops, greylisted, blackholed atomic.Int64
}

// ChaosMetrics are the counters of GET /api/metrics's chaos object.
type ChaosMetrics struct {
	EventsTotal             int64 `json:"events_total"`
	LatencyInjectedMs       int64 `json:"latency_injected_ms"`
	ErrorsReturnedTotal     int64 `json:"errors_returned_total"`
	ConnectionsDroppedTotal int64 `json:"connections_dropped_total"`
	GreylistRejectionsTotal int64 `json:"greylist_rejections_total"`
	BlackholeTotal          int64 `json:"blackhole_total"`
}

// Metrics returns this server's chaos counters.
func (k Chaos) Metrics() ChaosMetrics {
	n := &k.c.chaos
	return ChaosMetrics{
		EventsTotal: n.events.Load(), LatencyInjectedMs: n.latencyMs.Load(), ErrorsReturnedTotal: n.errors.Load(),
		ConnectionsDroppedTotal: n.drops.Load(), GreylistRejectionsTotal: n.greylisted.Load(), BlackholeTotal: n.blackholed.Load(),
	}
}

// At evaluates the chaos of a message's primary inbox at the end of
// its DATA (chaos.md, section 4) and records an applied action: its
// counters, a notice to the inbox's watchers and a log line. It returns
// no action while the switch is off or the config is inactive.
func (k Chaos) At(ctx context.Context, primary *Inbox, remote net.IP, sender string) (chaos.Outcome, error) {
	c := k.c
	if !c.opts.Chaos || primary == nil {
		return chaos.Outcome{}, nil
	}
	cfg, err := k.Config(ctx, primary.Hash)
	if err != nil {
		return chaos.Outcome{}, err
	}
	if !cfg.ActiveAt(c.opts.Now()) {
		return chaos.Outcome{}, nil
	}
	env := chaos.Envelope{Inbox: strings.ToLower(primary.Address), Remote: chaos.ClientIP(remote), Sender: sender}
	grey := func(ctx context.Context, key string, window time.Duration, maxAttempts int) (int, bool, error) {
		return c.store.GreylistAttempt(ctx, key, c.opts.Now(), window, maxAttempts)
	}
	out, err := chaos.Decide(ctx, cfg, env, c.opts.Rand, grey)
	if err != nil || !out.Applied() {
		return out, err
	}
	n := &c.chaos
	n.events.Add(1)
	switch out.Action.Type {
	case model.ChaosTypeConnectionDrop:
		n.drops.Add(1)
	case model.ChaosTypeGreylist:
		n.greylisted.Add(1)
	case model.ChaosTypeRandomError:
		n.errors.Add(1)
	case model.ChaosTypeBlackhole:
		n.blackholed.Add(1)
	case model.ChaosTypeLatency:
		n.latencyMs.Add(out.Action.DelayMs)
	}
	action := out.Action
	c.bus.Publish(Event{Type: EventChaos, At: c.opts.Now().UTC(), Inbox: primary.ref(), Chaos: &action})
	notices{c}.announceChaos(ctx, primary.Hash, action)
	c.log.Info("chaos applied", "inbox", primary.Address, "type", action.Type, "details", action.Text())
	return out, nil
}

// sweepLoop forgets, every chaos.GreylistSweep until the core stops, the
// greylisting entries first seen more than chaos.GreylistForget ago.
func (k Chaos) sweepLoop() func() { return every(k.c.baseCtx, chaos.GreylistSweep, k.sweepGreylist) }

func (k Chaos) sweepGreylist() {
	c := k.c
	if err := c.store.SweepGreylist(c.baseCtx, c.opts.Now().Add(-chaos.GreylistForget)); err != nil && c.baseCtx.Err() == nil {
		c.log.Error("sweeping the greylisting state failed", "error", err)
	}
}

// blackholeWebhooks hands the events of a blackholed message to the
// webhook engine alone (a blackholed message makes no commit to queue its
// deliveries with).
func (k Chaos) blackholeWebhooks(events []Event) {
	for _, ev := range events {
		k.c.hooks.Handle(ev)
	}
}
