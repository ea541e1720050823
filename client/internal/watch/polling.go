package watch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"sandview/client/internal/async"
)

// poller finds new mail by polling every watched inbox, all pollers
// sharing one request budget. It shares the engine's watched set, state
// and fetch bounds.
type poller struct {
	*Engine
	budget *limiter
}

// poll delivers by polling every watched inbox until nothing is watched
// (nil, true), the client is closed (nil, false) or, with probe, the event
// stream could be opened again (the open stream, true).
func (p *poller) poll(ctx context.Context, probe bool) (*stream, bool) {
	cfg := p.cfg
	p.states.set(State{Kind: StatePolling, Interval: cfg.PollingInterval})

	pollCtx, stopPolling := context.WithCancel(ctx)
	var wg sync.WaitGroup
	pollers := map[*watched]context.CancelFunc{}
	reconcile := func() int {
		list := p.watchedList()
		keep := make(map[*watched]bool, len(list))
		for _, w := range list {
			keep[w] = true
			if _, ok := pollers[w]; !ok {
				wctx, cancel := context.WithCancel(pollCtx)
				pollers[w] = cancel
				wg.Go(func() { p.pollInbox(wctx, w) })
			}
		}
		for w, cancel := range pollers {
			if !keep[w] {
				cancel()
				delete(pollers, w)
			}
		}
		return len(list)
	}

	probeCtx, stopProbe := context.WithCancel(ctx)
	probes := make(chan *stream, 1)
	probing := false
	defer func() {
		stopProbe()
		if probing {
			if s := <-probes; s != nil {
				s.close()
			}
		}
		stopPolling()
		wg.Wait()
	}()

	startProbe := func() {
		probing = true
		hashes := p.snapshot()
		go func() {
			s, err := p.open(probeCtx, hashes)
			if err != nil {
				s = nil
			}
			probes <- s
		}()
	}

	select {
	case <-p.changed:
	default:
	}
	if reconcile() == 0 {
		return nil, true
	}
	probeEvery := cfg.ReconnectInterval
	timer := time.NewTimer(probeEvery)
	defer timer.Stop()
	if !probe {
		timer.Stop()
	}
	for {
		select {
		case <-ctx.Done():
			return nil, false
		case <-p.changed:
			if reconcile() == 0 {
				return nil, true
			}
		case <-p.kick: // Reconnect: probe now
			if probe && !probing {
				timer.Stop()
				startProbe()
			}
		case <-timer.C:
			startProbe()
		case s := <-probes:
			probing = false
			if s != nil {
				return s, true
			}
			probeEvery = min(probeEvery*2, max(cfg.PollingMaxBackoff, cfg.ReconnectInterval))
			timer.Reset(probeEvery)
		}
	}
}

// pollInbox polls one inbox: its emails hash every interval (plus
// jitter); when the hash changes it lists the inbox, delivers what is new
// and resets the interval, else the interval grows by
// PollingBackoffMultiplier up to PollingMaxBackoff. Failures are reported
// once per streak; an inbox the server does not know ends the watch.
func (p *poller) pollInbox(ctx context.Context, w *watched) {
	cfg := p.cfg
	interval := cfg.PollingInterval
	grow := func() {
		interval = min(time.Duration(float64(interval)*cfg.PollingBackoffMultiplier), cfg.PollingMaxBackoff)
	}
	var lastHash string
	known, failing := false, false
	for first := true; ; first = false {
		if !first {
			wait := interval + time.Duration(rand.Float64()*cfg.PollingJitterFactor*float64(interval))
			if async.Sleep(ctx, wait) != nil {
				return
			}
		}
		if !p.isSeeded(w) {
			continue
		}
		if p.budget.wait(ctx) != nil {
			return
		}
		status, err := w.inbox.Poll(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if p.goneAfter(w, err) {
				return
			}
			if status.RateLimited {
				p.budget.pause(max(status.RetryAfter, interval))
			}
			p.states.setPollError(err)
			if !failing {
				failing = true
				p.report(fmt.Errorf("poll %s: %w", w.inbox.Address(), err))
			}
			grow()
			continue
		}
		failing = false
		p.states.setPollError(nil)
		if known && status.EmailsHash == lastHash {
			grow()
			continue
		}
		if p.budget.wait(ctx) != nil {
			return
		}
		if p.syncInbox(ctx, w) {
			lastHash, known = status.EmailsHash, true
		}
		interval = cfg.PollingInterval
	}
}

// limiter is a token bucket shared by an engine's pollers; pause holds
// every caller back (a rate limit's Retry-After).
type limiter struct {
	mu          sync.Mutex
	rate        float64 // tokens per second
	burst       float64
	tokens      float64
	last        time.Time
	pausedUntil time.Time
}

func newLimiter(rate, burst float64) *limiter {
	return &limiter{rate: rate, burst: burst, tokens: burst, last: time.Now()}
}

// wait takes a token, waiting for one as long as needed.
func (l *limiter) wait(ctx context.Context) error {
	for {
		d := l.reserve(time.Now())
		if d <= 0 {
			return nil
		}
		if err := async.Sleep(ctx, d); err != nil {
			return err
		}
	}
}

// reserve takes a token and returns 0, or returns how long to wait before
// trying again.
func (l *limiter) reserve(now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Before(l.pausedUntil) {
		return l.pausedUntil.Sub(now)
	}
	if now.After(l.last) {
		l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
		l.last = now
	}
	if l.tokens >= 1 {
		l.tokens--
		return 0
	}
	return time.Duration((1-l.tokens)/l.rate*float64(time.Second)) + time.Millisecond
}

// pause holds every caller back for d.
func (l *limiter) pause(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := time.Now().Add(d); until.After(l.pausedUntil) {
		l.pausedUntil = until
	}
}
