package feed

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
)

// Receiver takes what a Source pushes. Its methods only enqueue; NewEmail
// may wait while the queue is full (see the package doc), the others
// return at once, whatever the UI is doing.
type Receiver interface {
	NewEmail(address string, e model.Email)
	InboxReady(address string)
	// InboxGone says the server no longer knows the inbox: its watch
	// ended.
	InboxGone(address string, err error)
	// EmailDeleted says an email was deleted on the server, by this
	// program or another user's.
	EmailDeleted(address, id string)
	// Chaos says the server applied a chaos action to mail for the
	// inbox.
	Chaos(address string, a model.ChaosAction)
	State(st client.ConnState)
	SyncError(err error)
}

// Source pushes new mail and connection changes to a Receiver until stop is
// called: the client in production (FromClient), a fake in tests.
type Source interface {
	Subscribe(recv Receiver) (stop func(), err error)
}

// NewEmailMsg is one email delivered live.
type NewEmailMsg struct {
	Address string
	Email   model.Email
}

// NewEmailsMsg is the emails delivered live since the last frame, in
// the order they arrived: the queue hands them over at most once a
// FrameInterval, and once a BurstInterval while a burst goes on, so the
// screen updates and draws once for many mails.
type NewEmailsMsg struct{ Emails []NewEmailMsg }

// MaxQueuedEmails is how many new emails a Queue holds before NewEmail
// waits for the program to take them (and the most one NewEmailsMsg
// carries).
const MaxQueuedEmails = 1024

// FrameInterval is the least time between two NewEmailsMsg of a queue
// (about 60 frames a second).
const FrameInterval = time.Second / 60

// BurstInterval is the least time between two NewEmailsMsg while a burst
// goes on: a batch that followed the one before within BurstInterval and
// a frame (mail kept coming) is in a burst, and the next one waits this
// long. Ten frames a second show a burst well (as ten batches a second
// show a long listing), and a frame of a busy list costs milliseconds of
// the CPU the server ingests with; a lone mail is still shown at once.
const BurstInterval = 100 * time.Millisecond

// InboxReadyMsg says an inbox started delivering: the mail that arrived
// before is in its list, which should be loaded again.
type InboxReadyMsg struct{ Address string }

// InboxGoneMsg says the server no longer knows an inbox (deleted,
// expired, or lost in a restart); nothing of it is watched any more.
type InboxGoneMsg struct {
	Address string
	Err     error
}

// EmailDeletedMsg says an email was deleted on the server (by anyone
// sharing the inbox): it leaves the screen.
type EmailDeletedMsg struct{ Address, ID string }

// ChaosMsg is a chaos action the server applied to mail for an inbox
// (a greylisting, a dropped connection...): it goes to the activity.
type ChaosMsg struct {
	Address string
	Action  model.ChaosAction
}

// StateMsg is a change of the delivery connection.
type StateMsg struct{ State client.ConnState }

// SyncErrorMsg is an error of the client's background work.
type SyncErrorMsg struct{ Err error }

// EventMsg carries one message of the feed; the program asks for the next
// one (Queue.Next) once it has handled it.
type EventMsg struct{ Msg tea.Msg }

// Queue is the Receiver the program reads: a first-in first-out queue of
// messages holding at most MaxQueuedEmails new emails.
type Queue struct {
	ctx    context.Context
	mu     sync.Mutex
	msgs   []tea.Msg
	emails int           // how many of msgs are NewEmailMsg
	wake   chan struct{} // holds a token while msgs is not empty
	room   chan struct{} // holds a token when emails were taken
	// lastBatch is when the last NewEmailsMsg was handed over; burst: it
	// followed the one before closely (see BurstInterval).
	lastBatch time.Time
	burst     bool
}

// Start subscribes a new queue to src until ctx ends.
func Start(ctx context.Context, src Source) (*Queue, error) {
	q := &Queue{ctx: ctx, wake: make(chan struct{}, 1), room: make(chan struct{}, 1)}
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
	signal(q.wake)
}

// signal puts a token in ch unless it holds one.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// NewEmail enqueues a NewEmailMsg, waiting while the queue holds
// MaxQueuedEmails emails. Once the queue's context has ended nothing reads
// the queue: a push that would wait is dropped.
func (q *Queue) NewEmail(address string, e model.Email) {
	msg := NewEmailMsg{Address: address, Email: e}
	for {
		q.mu.Lock()
		if q.emails < MaxQueuedEmails {
			q.msgs = append(q.msgs, msg)
			q.emails++
			room := q.emails < MaxQueuedEmails
			q.mu.Unlock()
			signal(q.wake)
			if room { // wake another waiting push, if any
				signal(q.room)
			}
			return
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-q.ctx.Done():
			return
		}
	}
}

// InboxReady enqueues an InboxReadyMsg.
func (q *Queue) InboxReady(address string) { q.push(InboxReadyMsg{Address: address}) }

// InboxGone enqueues an InboxGoneMsg.
func (q *Queue) InboxGone(address string, err error) {
	q.push(InboxGoneMsg{Address: address, Err: err})
}

// EmailDeleted enqueues an EmailDeletedMsg.
func (q *Queue) EmailDeleted(address, id string) {
	q.push(EmailDeletedMsg{Address: address, ID: id})
}

// Chaos enqueues a ChaosMsg.
func (q *Queue) Chaos(address string, a model.ChaosAction) {
	q.push(ChaosMsg{Address: address, Action: a})
}

// State enqueues a StateMsg.
func (q *Queue) State(st client.ConnState) { q.push(StateMsg{State: st}) }

// SyncError enqueues a SyncErrorMsg.
func (q *Queue) SyncError(err error) { q.push(SyncErrorMsg{Err: err}) }

// Next is the Cmd that waits for the next message and delivers it as an
// EventMsg; it delivers nothing once the queue's context ends. New emails
// come as one NewEmailsMsg holding every email queued in a row, at most
// one such message a FrameInterval (a BurstInterval during a burst): the
// first email after a quiet spell is delivered at once, the ones of a
// burst are gathered.
func (q *Queue) Next() tea.Cmd {
	return func() tea.Msg {
		for {
			q.mu.Lock()
			if len(q.msgs) > 0 {
				if _, ok := q.msgs[0].(NewEmailMsg); ok {
					if wait := time.Until(q.lastBatch.Add(q.interval())); wait > 0 {
						q.mu.Unlock()
						if !q.sleep(wait) {
							return nil
						}
						continue
					}
				}
				msg := q.take()
				more := len(q.msgs) > 0
				q.mu.Unlock()
				if more {
					signal(q.wake)
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

// take removes the message at the front, with q.mu held: the new emails
// queued in a row gathered into one NewEmailsMsg.
func (q *Queue) take() tea.Msg {
	n := 0
	for n < len(q.msgs) {
		if _, ok := q.msgs[n].(NewEmailMsg); !ok {
			break
		}
		n++
	}
	if n == 0 {
		msg := q.msgs[0]
		q.msgs[0] = nil
		q.msgs = q.msgs[1:]
		return msg
	}
	batch := make([]NewEmailMsg, n)
	for i := range n {
		batch[i] = q.msgs[i].(NewEmailMsg)
		q.msgs[i] = nil
	}
	q.msgs = q.msgs[n:]
	q.emails -= n
	signal(q.room)
	now := time.Now()
	q.burst = !q.lastBatch.IsZero() && now.Sub(q.lastBatch) <= BurstInterval+FrameInterval
	q.lastBatch = now
	return NewEmailsMsg{Emails: batch}
}

// interval is the least time from the last NewEmailsMsg to the next, with
// q.mu held.
func (q *Queue) interval() time.Duration {
	if q.burst {
		return BurstInterval
	}
	return FrameInterval
}

// sleep waits d unless the queue's context ends first (false).
func (q *Queue) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-q.ctx.Done():
		return false
	}
}
