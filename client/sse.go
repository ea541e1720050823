package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"sandview/model"
)

// The event stream (GET /api/events?inboxes=h1,h2). go-sse parses the
// stream (sse.Read); the reconnect rules are the contract's, implemented
// here, not go-sse's Connection backoff.

const (
	// streamIdleTimeout ends a stream that sent nothing, not even a
	// heartbeat (every 30 s on deployments), for this long: the connection
	// is taken for dead and reopened.
	streamIdleTimeout = 90 * time.Second
	// maxStreamEventBytes bounds one event (an encrypted notification is
	// about 8 KB).
	maxStreamEventBytes = 1 << 20
	// maxReconnectDelay caps the doubling reconnect delay.
	maxReconnectDelay = time.Hour
)

var (
	errWatchListChanged = errors.New("the watched inboxes changed")
	errStreamIdle       = fmt.Errorf("the event stream sent nothing for %s", streamIdleTimeout)
	errStreamEnded      = errors.New("the server closed the event stream")
	errConnectTimeout   = errors.New("connect timeout")
)

// stream is an open event stream.
type stream struct {
	resp   *http.Response
	ctx    context.Context
	cancel context.CancelCauseFunc
	hashes []string
}

func (s *stream) close() {
	s.cancel(nil)
	s.resp.Body.Close()
}

// runStream is the engine loop of the sse and auto strategies.
func (d *delivery) runStream(ctx context.Context) {
	o := d.c.opts
	var s *stream
	attempt := 0    // failed reconnects since the stream was last open
	opened := false // auto falls back at once until the stream was open
	for {
		hashes, ok := d.waitWatched(ctx)
		if !ok {
			return
		}
		if s == nil {
			if attempt == 0 {
				d.setStateUnlessLive(ConnState{Kind: StateConnecting})
			}
			var err error
			s, err = d.open(ctx, hashes)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				if attempt < o.SSEMaxReconnectAttempts && (opened || o.Strategy != StrategyAuto) {
					attempt++
					if !d.reconnectWait(ctx, attempt, err) {
						return
					}
					continue
				}
				if s, ok = d.fallBack(ctx, err); !ok {
					return
				}
				attempt = 0
				if s == nil {
					continue
				}
			}
		}
		opened, attempt = true, 0
		d.setState(ConnState{Kind: StateLive})
		go d.syncAll(ctx)
		err := d.read(ctx, s)
		s = nil
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, errWatchListChanged) {
			continue
		}
		d.report(&SSEError{Err: err})
		if o.SSEMaxReconnectAttempts == 0 {
			if s, ok = d.fallBack(ctx, err); !ok {
				return
			}
			continue
		}
		attempt = 1
		if !d.reconnectWait(ctx, attempt, err) {
			return
		}
	}
}

// fallBack polls until the stream can be opened again.
func (d *delivery) fallBack(ctx context.Context, cause error) (*stream, bool) {
	d.report(&StrategyError{Strategy: d.c.opts.Strategy, Reason: "the event stream is unavailable, falling back to polling", Err: cause})
	return d.poll(ctx, true)
}

// setStateUnlessLive sets s unless the stream is live (a reconnect for a
// changed inbox list is not shown).
func (d *delivery) setStateUnlessLive(s ConnState) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state.Kind != StateLive {
		d.setStateLocked(s)
	}
}

// reconnectWait shows and waits the delay before reconnect attempt n:
// SSEReconnectInterval·2^(n-1).
func (d *delivery) reconnectWait(ctx context.Context, n int, cause error) bool {
	delay := d.c.opts.SSEReconnectInterval << min(n-1, 30)
	if delay <= 0 || delay > maxReconnectDelay {
		delay = maxReconnectDelay
	}
	d.setState(ConnState{Kind: StateReconnecting, Attempt: n, Delay: delay, Err: cause})
	return d.c.sleep(ctx, delay) == nil
}

// open opens the event stream for the hashes. The connection lives under
// the client's context; abort cancels only the opening. Opening takes at
// most SSEConnectionTimeout.
func (d *delivery) open(abort context.Context, hashes []string) (*stream, error) {
	c := d.c
	ctx, cancel := context.WithCancelCause(c.ctx)
	req, err := c.newRequest(ctx, http.MethodGet, "/api/events", nil, nil)
	if err != nil {
		cancel(nil)
		return nil, &SSEError{Err: err}
	}
	// Hashes are base64url: the comma-separated list needs no escaping.
	req.URL.RawQuery = "inboxes=" + strings.Join(hashes, ",")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")

	stopAbort := context.AfterFunc(abort, func() { cancel(context.Cause(abort)) })
	timer := time.AfterFunc(c.opts.SSEConnectionTimeout, func() { cancel(errConnectTimeout) })
	resp, err := c.http.Do(req)
	timer.Stop()
	stopAbort()
	if err == nil && ctx.Err() != nil { // the timer or abort fired just after the answer
		resp.Body.Close()
		err = context.Cause(ctx)
	}
	if err != nil {
		cause := context.Cause(ctx)
		cancel(nil)
		switch {
		case errors.Is(cause, errConnectTimeout):
			return nil, &SSEError{Err: &TimeoutError{Op: "open the event stream", After: c.opts.SSEConnectionTimeout}}
		case c.ctx.Err() != nil:
			return nil, ErrClientClosed
		case abort.Err() != nil:
			return nil, context.Cause(abort)
		}
		return nil, &SSEError{Err: &NetworkError{URL: c.baseURL, Err: err}}
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes))
		resp.Body.Close()
		cancel(nil)
		r := request{method: http.MethodGet, path: "/api/events"}
		return nil, &SSEError{Err: mapStatus(r, response{
			status:     resp.StatusCode,
			body:       body,
			retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
			requestID:  requestID(resp.Header),
		})}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body.Close()
		cancel(nil)
		return nil, &SSEError{Err: fmt.Errorf("GET /api/events answered %q, not an event stream", resp.Header.Get("Content-Type"))}
	}
	return &stream{resp: resp, ctx: ctx, cancel: cancel, hashes: slices.Clone(hashes)}, nil
}

// read handles the stream's events until it fails, the watched inboxes
// change (errWatchListChanged) or the client is closed.
func (d *delivery) read(ctx context.Context, s *stream) error {
	defer s.close()
	if !slices.Equal(d.snapshot(), s.hashes) {
		return errWatchListChanged
	}
	watcherDone := make(chan struct{})
	go func() {
		defer close(watcherDone)
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-d.changed:
				if !slices.Equal(d.snapshot(), s.hashes) {
					s.cancel(errWatchListChanged)
					return
				}
			}
		}
	}()
	// The watcher must be gone before the caller looks at d.changed again.
	defer func() { <-watcherDone }()
	defer s.cancel(nil)

	idle := time.AfterFunc(streamIdleTimeout, func() { s.cancel(errStreamIdle) })
	defer idle.Stop()
	var readErr error
	for ev, err := range sse.Read(s.resp.Body, &sse.ReadConfig{MaxEventSize: maxStreamEventBytes}) {
		if err != nil {
			readErr = err
			break
		}
		idle.Reset(streamIdleTimeout)
		d.handleEvent(ctx, ev.Data)
	}
	if s.ctx.Err() != nil {
		return context.Cause(s.ctx)
	}
	if readErr != nil {
		return fmt.Errorf("read the event stream: %w", readErr)
	}
	return errStreamEnded
}

// handleEvent handles one `data:` message: a new-email notification of a
// watched inbox is claimed and its email fetched and delivered;
// heartbeats and other messages are ignored.
func (d *delivery) handleEvent(ctx context.Context, data string) {
	data = strings.TrimSpace(data)
	if data == "" {
		return
	}
	var ev model.StreamEvent
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		d.report(&SSEError{Err: fmt.Errorf("the server sent an event that is not JSON: %w", err)})
		return
	}
	if !ev.IsNotification() {
		return
	}
	w := d.claimByHash(ev.InboxID, ev.EmailID)
	if w == nil {
		return
	}
	go func() {
		if d.fetchAndDeliver(ctx, w, ev.EmailID, &ev) != nil {
			d.resyncLater(ctx, w)
		}
	}()
}
