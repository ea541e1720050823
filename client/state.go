package client

import (
	"fmt"
	"time"
)

// StateKind is what the delivery connection is doing.
type StateKind int

// Connection states, in the order a client usually goes through them.
const (
	// StateIdle: nothing is watched, so nothing is connected.
	StateIdle StateKind = iota
	// StateConnecting: the event stream is being opened.
	StateConnecting
	// StateLive: the event stream is open; mail arrives as it is received.
	StateLive
	// StateReconnecting: the stream failed; ConnState.Attempt and Delay say
	// which reconnect comes when, Err why.
	StateReconnecting
	// StatePolling: mail is found by polling every ConnState.Interval (at
	// first); Err is set while polls fail for a server-wide reason.
	StatePolling
	// StateClosed: the client is closed.
	StateClosed
)

func (k StateKind) String() string {
	switch k {
	case StateIdle:
		return "idle"
	case StateConnecting:
		return "connecting"
	case StateLive:
		return "live"
	case StateReconnecting:
		return "reconnecting"
	case StatePolling:
		return "polling"
	case StateClosed:
		return "closed"
	}
	return fmt.Sprintf("StateKind(%d)", int(k))
}

// ConnState is the state of the client's delivery connection, for UIs.
type ConnState struct {
	Kind StateKind
	// Attempt (from 1) and Delay describe the next reconnect
	// (StateReconnecting).
	Attempt int
	Delay   time.Duration
	// Interval is the initial polling interval (StatePolling).
	Interval time.Duration
	// Err is the last error: why the stream is reconnecting, or why polls
	// fail. Nil when all is well.
	Err error
}

func (s ConnState) String() string {
	var text string
	switch s.Kind {
	case StateReconnecting:
		text = fmt.Sprintf("reconnecting in %s (attempt %d)", s.Delay, s.Attempt)
	case StatePolling:
		text = fmt.Sprintf("polling every %s", s.Interval)
	default:
		text = s.Kind.String()
	}
	if s.Err != nil {
		text += ": " + s.Err.Error()
	}
	return text
}

// same reports whether two states would look the same to a UI.
func (s ConnState) same(o ConnState) bool {
	return s.Kind == o.Kind && s.Attempt == o.Attempt && s.Delay == o.Delay &&
		s.Interval == o.Interval && errorText(s.Err) == errorText(o.Err)
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// State returns the delivery connection's current state.
func (c *Client) State() ConnState {
	d := c.dl()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state
}

// OnStateChange calls fn with the current state and then with every change
// of the delivery connection's state, in order, on a goroutine of its own.
// After Close, fn gets StateClosed and no more calls.
func (c *Client) OnStateChange(fn func(ConnState)) Subscription {
	d := c.dl()
	disp := newDispatcher[ConnState](nil)
	disp.add(fn)
	d.mu.Lock()
	id := d.nextID
	d.nextID++
	disp.push(d.state)
	if d.state.Kind == StateClosed {
		disp.finish()
		d.mu.Unlock()
		return subscriptionFunc(disp.stop)
	}
	d.stateListeners[id] = disp
	d.mu.Unlock()
	return subscriptionFunc(func() {
		d.mu.Lock()
		delete(d.stateListeners, id)
		d.mu.Unlock()
		disp.stop()
	})
}

// setState records a new state and tells the listeners when a UI would
// see a difference. Nothing changes once the client is closed.
func (d *delivery) setState(s ConnState) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.setStateLocked(s)
}

func (d *delivery) setStateLocked(s ConnState) {
	if d.state.Kind == StateClosed || d.state.same(s) {
		return
	}
	if s.Kind != StateClosed && d.c.ctx.Err() != nil {
		return
	}
	d.state = s
	for id, l := range d.stateListeners {
		l.push(s)
		if s.Kind == StateClosed {
			l.finish()
			delete(d.stateListeners, id)
		}
	}
}

// setPollError updates the error shown with StatePolling (nil clears it).
func (d *delivery) setPollError(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state.Kind != StatePolling {
		return
	}
	st := d.state
	st.Err = err
	d.setStateLocked(st)
}
