package client

import "sandview/client/internal/watch"

// ConnState is the state of the client's delivery connection, for UIs:
// Kind, the next reconnect (Attempt, Delay) while reconnecting, the
// polling Interval while polling, and the last error (Err).
type ConnState = watch.State

// StateKind is what the delivery connection is doing.
type StateKind = watch.StateKind

// Connection states, in the order a client usually goes through them.
const (
	// StateIdle: nothing is watched, so nothing is connected.
	StateIdle = watch.StateIdle
	// StateConnecting: the event stream is being opened.
	StateConnecting = watch.StateConnecting
	// StateLive: the event stream is open; mail arrives as it is received.
	StateLive = watch.StateLive
	// StateReconnecting: the stream failed; ConnState.Attempt and Delay say
	// which reconnect comes when, Err why.
	StateReconnecting = watch.StateReconnecting
	// StatePolling: mail is found by polling every ConnState.Interval (at
	// first); Err is set while polls fail for a server-wide reason.
	StatePolling = watch.StatePolling
	// StateClosed: the client is closed.
	StateClosed = watch.StateClosed
)

// State returns the delivery connection's current state.
func (l *live) State() ConnState { return l.engine.State() }

// OnStateChange calls fn with the current state and then with every change
// of the delivery connection's state, in order, on a goroutine of its own.
// After Close, fn gets StateClosed and no more calls.
func (l *live) OnStateChange(fn func(ConnState)) Subscription {
	return onceSubscription(l.engine.OnStateChange(fn))
}

// Reconnect cuts short the wait before the event stream is reconnected
// (or, while polling instead, probed): the next attempt starts now. It
// does nothing while the stream is open. A UI calls it when the user asks
// to retry.
func (l *live) Reconnect() { l.engine.Reconnect() }
