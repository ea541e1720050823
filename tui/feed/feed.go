package feed

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
)

// Sink takes what a Source pushes. Its methods only enqueue: they return
// at once, whatever the UI is doing.
type Sink interface {
	NewEmail(address string, e model.Email)
	InboxReady(address string)
	// InboxGone says the server no longer knows the inbox: its watch
	// ended.
	InboxGone(address string, err error)
	State(st client.ConnState)
	SyncError(err error)
}

// Source pushes new mail and connection changes to a sink until stop is
// called: the client in production (FromClient), a fake in tests.
type Source interface {
	Subscribe(sink Sink) (stop func(), err error)
}

// NewEmailMsg is one email delivered live.
type NewEmailMsg struct {
	Address string
	Email   model.Email
}

// InboxReadyMsg says an inbox started delivering: the mail that arrived
// before is in its list, which should be loaded again.
type InboxReadyMsg struct{ Address string }

// InboxGoneMsg says the server no longer knows an inbox (deleted,
// expired, or lost in a restart); nothing of it is watched any more.
type InboxGoneMsg struct {
	Address string
	Err     error
}

// StateMsg is a change of the delivery connection.
type StateMsg struct{ State client.ConnState }

// SyncErrorMsg is an error of the client's background work.
type SyncErrorMsg struct{ Err error }

// EventMsg carries one message of the feed; the program asks for the next
// one (Queue.Next) once it has handled it.
type EventMsg struct{ Msg tea.Msg }

// Queue is the Sink the program reads: an unbounded first-in first-out
// queue of messages, so a push never blocks.
type Queue struct {
	ctx  context.Context
	mu   sync.Mutex
	msgs []tea.Msg
	wake chan struct{} // holds a token while msgs is not empty
}

// Start subscribes a new queue to src until ctx ends.
func Start(ctx context.Context, src Source) (*Queue, error) {
	q := &Queue{ctx: ctx, wake: make(chan struct{}, 1)}
	stop, err := src.Subscribe(q)
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, stop)
	return q, nil
}

func (q *Queue) push(msg tea.Msg) {
	q.mu.Lock()
	q.msgs = append(q.msgs, msg)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// NewEmail enqueues a NewEmailMsg.
func (q *Queue) NewEmail(address string, e model.Email) {
	q.push(NewEmailMsg{Address: address, Email: e})
}

// InboxReady enqueues an InboxReadyMsg.
func (q *Queue) InboxReady(address string) { q.push(InboxReadyMsg{Address: address}) }

// InboxGone enqueues an InboxGoneMsg.
func (q *Queue) InboxGone(address string, err error) {
	q.push(InboxGoneMsg{Address: address, Err: err})
}

// State enqueues a StateMsg.
func (q *Queue) State(st client.ConnState) { q.push(StateMsg{State: st}) }

// SyncError enqueues a SyncErrorMsg.
func (q *Queue) SyncError(err error) { q.push(SyncErrorMsg{Err: err}) }

// Next is the Cmd that waits for the next message and delivers it as an
// EventMsg; it delivers nothing once the queue's context ends.
func (q *Queue) Next() tea.Cmd {
	return func() tea.Msg {
		for {
			q.mu.Lock()
			if len(q.msgs) > 0 {
				msg := q.msgs[0]
				q.msgs[0] = nil
				q.msgs = q.msgs[1:]
				more := len(q.msgs) > 0
				q.mu.Unlock()
				if more {
					select {
					case q.wake <- struct{}{}:
					default:
					}
				}
				return EventMsg{Msg: msg}
			}
			q.mu.Unlock()
			select {
			case <-q.wake:
			case <-q.ctx.Done():
				return nil
			}
		}
	}
}
