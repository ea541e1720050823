package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"sandview/model"
)

// poll delivers by polling every watched inbox until nothing is watched
// (nil, true), the client is closed (nil, false) or, with probe, the event
// stream could be opened again (the open stream, true).
func (d *delivery) poll(ctx context.Context, probe bool) (*stream, bool) {
	o := d.c.opts
	d.setState(ConnState{Kind: StatePolling, Interval: o.PollingInterval})

	pollCtx, stopPolling := context.WithCancel(ctx)
	var wg sync.WaitGroup
	pollers := map[*watched]context.CancelFunc{}
	reconcile := func() int {
		list := d.watchedList()
		keep := make(map[*watched]bool, len(list))
		for _, w := range list {
			keep[w] = true
			if _, ok := pollers[w]; !ok {
				wctx, cancel := context.WithCancel(pollCtx)
				pollers[w] = cancel
				wg.Go(func() { d.pollInbox(wctx, w) })
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

	select {
	case <-d.changed:
	default:
	}
	if reconcile() == 0 {
		return nil, true
	}
	probeEvery := o.SSEReconnectInterval
	timer := time.NewTimer(probeEvery)
	defer timer.Stop()
	if !probe {
		timer.Stop()
	}
	for {
		select {
		case <-ctx.Done():
			return nil, false
		case <-d.changed:
			if reconcile() == 0 {
				return nil, true
			}
		case <-timer.C:
			probing = true
			hashes := d.snapshot()
			go func() {
				s, err := d.open(probeCtx, hashes)
				if err != nil {
					s = nil
				}
				probes <- s
			}()
		case s := <-probes:
			probing = false
			if s != nil {
				return s, true
			}
			probeEvery = min(probeEvery*2, max(o.PollingMaxBackoff, o.SSEReconnectInterval))
			timer.Reset(probeEvery)
		}
	}
}

// pollInbox polls one inbox: its sync status every interval (plus
// jitter); when emailsHash changes it lists the inbox, delivers what is
// new and resets the interval, else the interval grows by
// PollingBackoffMultiplier up to PollingMaxBackoff. Failures are reported
// once per streak.
func (d *delivery) pollInbox(ctx context.Context, w *watched) {
	o := d.c.opts
	interval := o.PollingInterval
	grow := func() {
		interval = min(time.Duration(float64(interval)*o.PollingBackoffMultiplier), o.PollingMaxBackoff)
	}
	var lastHash string
	known, failing := false, false
	for first := true; ; first = false {
		if !first {
			wait := interval + time.Duration(rand.Float64()*o.PollingJitterFactor*float64(interval))
			if d.c.sleep(ctx, wait) != nil {
				return
			}
		}
		if !d.isSeeded(w) {
			continue
		}
		if d.budget.wait(ctx) != nil {
			return
		}
		status, err := d.c.syncStatusOnce(ctx, w.inbox)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			var limited *RateLimitedError
			if errors.As(err, &limited) {
				d.budget.pause(max(limited.RetryAfter, interval))
			}
			var gone *InboxNotFoundError
			if !errors.As(err, &gone) {
				d.setPollError(err)
			}
			if !failing {
				failing = true
				d.report(fmt.Errorf("poll %s: %w", w.inbox.info.EmailAddress, err))
			}
			grow()
			continue
		}
		failing = false
		d.setPollError(nil)
		if known && status.EmailsHash == lastHash {
			grow()
			continue
		}
		if d.budget.wait(ctx) != nil {
			return
		}
		if d.syncInbox(ctx, w) {
			lastHash, known = status.EmailsHash, true
		}
		interval = o.PollingInterval
	}
}

// syncStatusOnce fetches an inbox's sync status in one attempt, without
// the client's retries: the poller has its own schedule, and a 429 must
// pause all pollers at once.
func (c *Client) syncStatusOnce(ctx context.Context, in *Inbox) (model.SyncStatus, error) {
	var status model.SyncStatus
	r := request{
		method:   http.MethodGet,
		path:     inboxPath(in.info.EmailAddress) + "/sync",
		out:      &status,
		notFound: inboxNotFound(in.info.EmailAddress),
	}
	ctx, stop := c.withClientContext(ctx)
	defer stop()
	resp, err := c.attempt(ctx, r, nil)
	if err != nil {
		if ctx.Err() != nil {
			return status, c.contextError(ctx, r)
		}
		var timeout *TimeoutError
		if errors.As(err, &timeout) {
			return status, err
		}
		return status, &NetworkError{URL: c.baseURL, Err: err}
	}
	if resp.status < 200 || resp.status > 299 {
		return status, mapStatus(r, resp)
	}
	return status, decodeBody(r, resp.body)
}

// limiter is a token bucket shared by a client's pollers; pause holds
// every caller back (a 429's Retry-After).
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
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
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
