package watch

import (
	"context"
	"fmt"
	"sync"
	"time"

	"sandview/client/internal/async"
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
	// StateReconnecting: the stream failed; State.Attempt and Delay say
	// which reconnect comes when, Err why.
	StateReconnecting
	// StatePolling: mail is found by polling every State.Interval (at
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

// State is the state of the delivery connection, for UIs.
type State struct {
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

func (s State) String() string {
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
func (s State) same(o State) bool {
	return s.Kind == o.Kind && s.Attempt == o.Attempt && s.Delay == o.Delay &&
		s.Interval == o.Interval && errorText(s.Err) == errorText(o.Err)
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// states is the engine's connection state and its listeners.
type states struct {
	ctx context.Context // the client's lifetime

	mu        sync.Mutex
	state     State
	listeners map[int]*async.Queue[State]
	nextID    int
}

// State returns the delivery connection's current state: StateClosed as
// soon as the client's context ends (the listeners hear it a moment later,
// from their own goroutine).
func (e *Engine) State() State { return e.states.get() }

func (s *states) get() State {
	if s.ctx.Err() != nil {
		return State{Kind: StateClosed}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// OnStateChange calls fn with the current state and then with every
// change, in order, on a goroutine of its own, until the returned function
// is called. After the client is closed, fn gets StateClosed and no more
// calls.
func (e *Engine) OnStateChange(fn func(State)) (stop func()) { return e.states.listen(fn) }

func (s *states) listen(fn func(State)) (stop func()) {
	q := async.NewQueue[State](nil)
	q.Add(fn)
	s.mu.Lock()
	defer s.mu.Unlock()
	q.Push(s.state)
	if s.state.Kind == StateClosed {
		q.Finish()
		return q.Stop
	}
	id := s.nextID
	s.nextID++
	s.listeners[id] = q
	return func() {
		s.mu.Lock()
		delete(s.listeners, id)
		s.mu.Unlock()
		q.Stop()
	}
}

// set records a new state and tells the listeners when a UI would see a
// difference. Nothing changes once the client is closed.
func (s *states) set(st State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setLocked(st)
}

func (s *states) setLocked(st State) {
	if s.state.Kind == StateClosed || s.state.same(st) {
		return
	}
	if st.Kind != StateClosed && s.ctx.Err() != nil {
		return
	}
	s.state = st
	for id, l := range s.listeners {
		l.Push(st)
		if st.Kind == StateClosed {
			l.Finish()
			delete(s.listeners, id)
		}
	}
}

// setUnlessLive sets st unless the stream is live (a reconnect for a
// changed inbox list is not shown).
func (s *states) setUnlessLive(st State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Kind != StateLive {
		s.setLocked(st)
	}
}

// setPollError updates the error shown with StatePolling (nil clears it).
func (s *states) setPollError(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Kind != StatePolling {
		return
	}
	st := s.state
	st.Err = err
	s.setLocked(st)
}
