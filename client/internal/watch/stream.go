package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
	sse "github.com/tmaxmax/go-sse"

	"sandview/model"
)

// The event stream (GET /api/events?inboxes=h1,h2, opened by the client).
// go-sse parses the stream (sse.Read); the reconnect rules are the
// contract's, implemented here, not go-sse's Connection backoff.

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
)

// stream is an open event stream.
type stream struct {
	body   io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	hashes []string
}

func (s *stream) close() {
	s.cancel(nil)
	s.body.Close()
}

// streamer runs the engine in the stream and auto modes: it opens the
// event stream, reconnects it, falls back to polling (the engine's
// poller) and hands the notifications on. It shares the engine's watched
// set, state and fetch bounds.
type streamer struct{ *Engine }

// runStream is the engine loop of the stream and auto modes.
func (st *streamer) runStream(ctx context.Context) {
	cfg := st.cfg
	var s *stream
	attempt := 0    // failed reconnects since the stream was last open
	opened := false // auto falls back at once until the stream was open
	for {
		hashes, ok := st.waitWatched(ctx)
		if !ok {
			return
		}
		if s == nil {
			if attempt == 0 {
				st.states.setUnlessLive(State{Kind: StateConnecting})
			}
			var err error
			s, err = st.open(ctx, hashes)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				refused := st.client.StreamRefused(err)
				if refused && st.checkRefused(ctx) {
					continue // without the inboxes that are gone
				}
				if !refused && attempt < cfg.MaxReconnectAttempts && (opened || cfg.Mode != ModeAuto) {
					attempt++
					if !st.reconnectWait(ctx, attempt, err) {
						return
					}
					continue
				}
				if s, ok = st.fallBack(ctx, err); !ok {
					return
				}
				attempt = 0
				if s == nil {
					continue
				}
			}
		}
		opened, attempt = true, 0
		select {
		case <-st.kick: // asked for while it was not open: done
		default:
		}
		st.states.set(State{Kind: StateLive})
		go st.syncAll(ctx)
		err := st.read(ctx, s)
		s = nil
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, errWatchListChanged) {
			continue
		}
		st.client.ReportStreamError(err)
		if cfg.MaxReconnectAttempts == 0 {
			if s, ok = st.fallBack(ctx, err); !ok {
				return
			}
			continue
		}
		attempt = 1
		if !st.reconnectWait(ctx, attempt, err) {
			return
		}
	}
}

// fallBack polls until the stream can be opened again.
func (st *streamer) fallBack(ctx context.Context, cause error) (*stream, bool) {
	st.client.ReportFallback(cause)
	return st.poller.poll(ctx, true)
}

// reconnectDelay is the delay before reconnect attempt n:
// ReconnectInterval·2^(n-1) up to MaxReconnectDelay, less the jitter
// (rnd is a number in [0, 1)).
func (st *streamer) reconnectDelay(n int, rnd float64) time.Duration {
	limit := st.cfg.MaxReconnectDelay
	if limit <= 0 || limit > maxReconnectDelay {
		limit = maxReconnectDelay
	}
	delay := st.cfg.ReconnectInterval << min(n-1, 30)
	if delay <= 0 || delay > limit {
		delay = limit
	}
	return delay - time.Duration(rnd*st.cfg.ReconnectJitter*float64(delay))
}

// reconnectWait shows and waits the delay before reconnect attempt n; a
// Reconnect ends the wait early.
func (st *streamer) reconnectWait(ctx context.Context, n int, cause error) bool {
	delay := st.reconnectDelay(n, rand.Float64())
	st.states.set(State{Kind: StateReconnecting, Attempt: n, Delay: delay, Err: cause})
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
	case <-st.kick:
	}
	return true
}

// Reconnect cuts short a wait before reconnecting the stream or probing
// it while polling: the next attempt starts now. It does nothing to a
// stream that is open.
func (e *Engine) Reconnect() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// open opens the event stream for the hashes. The stream lives under the
// client's context; abort cancels only the opening.
func (e *Engine) open(abort context.Context, hashes []string) (*stream, error) {
	ctx, cancel := context.WithCancelCause(e.ctx)
	stopAbort := context.AfterFunc(abort, func() { cancel(context.Cause(abort)) })
	body, err := e.client.OpenStream(ctx, hashes)
	stopAbort()
	if err == nil && ctx.Err() != nil { // abort fired just after the answer
		body.Close()
		err = context.Cause(ctx)
	}
	if err != nil {
		cancel(nil)
		if e.ctx.Err() == nil && abort.Err() != nil {
			return nil, context.Cause(abort)
		}
		return nil, err
	}
	return &stream{body: body, ctx: ctx, cancel: cancel, hashes: slices.Clone(hashes)}, nil
}

// read handles the stream's events until it fails, the watched inboxes
// change (errWatchListChanged) or the client is closed.
func (st *streamer) read(ctx context.Context, s *stream) error {
	defer s.close()
	if !slices.Equal(st.snapshot(), s.hashes) {
		return errWatchListChanged
	}
	watcherDone := make(chan struct{})
	go func() {
		defer close(watcherDone)
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-st.changed:
				if !slices.Equal(st.snapshot(), s.hashes) {
					s.cancel(errWatchListChanged)
					return
				}
			}
		}
	}()
	// The watcher must be gone before the caller looks at st.changed again.
	defer func() { <-watcherDone }()
	defer s.cancel(nil)

	idle := time.AfterFunc(streamIdleTimeout, func() { s.cancel(errStreamIdle) })
	defer idle.Stop()
	var readErr error
	for ev, err := range sse.Read(s.body, &sse.ReadConfig{MaxEventSize: maxStreamEventBytes}) {
		if err != nil {
			readErr = err
			break
		}
		idle.Reset(streamIdleTimeout)
		if ev.Type == model.StreamNoticeEvent {
			st.handleNotice(ctx, ev.Data)
			continue
		}
		st.handleEvent(ctx, ev.Data)
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
// watched inbox is claimed and its email fetched and delivered (in a
// goroutine of its own, at most maxPendingNotifications at once);
// heartbeats and other messages are ignored.
func (st *streamer) handleEvent(ctx context.Context, data string) {
	data = strings.TrimSpace(data)
	if data == "" {
		return
	}
	var ev model.StreamEvent
	// Decoded as the client decodes list records (client/listread.go):
	// encoding/json's rules through jsonv2, which reads the ~9 KB of
	// base64 of an encrypted notification several times faster; a burst
	// is thousands of them.
	if err := jsonv2.Unmarshal([]byte(data), &ev, jsonv1.DefaultOptionsV1()); err != nil {
		st.client.ReportStreamError(fmt.Errorf("the server sent an event that is not JSON: %w", err))
		return
	}
	if !ev.IsNotification() {
		return
	}
	w := st.claimByHash(ev.InboxID, ev.EmailID)
	if w == nil {
		return
	}
	select { // wait while maxPendingNotifications wait (back-pressure)
	case st.pending <- struct{}{}:
	case <-ctx.Done():
		return
	}
	go func() {
		defer func() { <-st.pending }()
		if st.fetchAndDeliver(ctx, w, ev.EmailID, &ev) != nil {
			st.resyncLater(ctx, w)
		}
	}()
}
