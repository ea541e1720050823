package feed

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"sandview/client"
	"sandview/model"
)

// source pushes what the test asks, like the client's callbacks.
type source struct{ recv Receiver }

func (s *source) Subscribe(recv Receiver) (func(), error) {
	s.recv = recv
	return func() {}, nil
}

// start starts a queue over a new source.
func start(t *testing.T) (*Queue, *source, context.CancelFunc) {
	t.Helper()
	src := &source{}
	ctx, cancel := context.WithCancel(context.Background())
	q, err := Start(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	return q, src, cancel
}

// TestAFullQueueHoldsTheSenderBack fills the queue with nobody reading:
// MaxQueuedEmails emails and the other messages return at once, later
// emails wait for the reader (the client's delivery is held back, the
// queue never holds more), and everything is read back in order, nothing
// lost.
func TestAFullQueueHoldsTheSenderBack(t *testing.T) {
	q, src, cancel := start(t)
	defer cancel()
	const n = 10000
	for i := range MaxQueuedEmails {
		src.recv.NewEmail("a@b.test", model.Email{ID: fmt.Sprint(i)})
	}
	// The queue is full of emails: the other messages still go in at once.
	src.recv.InboxReady("a@b.test")
	src.recv.InboxGone("a@b.test", errors.New("not found"))
	src.recv.State(client.ConnState{Kind: client.StateLive})
	src.recv.SyncError(errors.New("boom"))
	pushed := make(chan struct{})
	go func() {
		defer close(pushed)
		for i := MaxQueuedEmails; i < n; i++ {
			src.recv.NewEmail("a@b.test", model.Email{ID: fmt.Sprint(i)})
		}
	}()
	next := q.Next()
	held := func() int {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.emails
	}
	read := func(from, to int) {
		t.Helper()
		for i := from; i < to; {
			if h := held(); h > MaxQueuedEmails {
				t.Fatalf("the queue holds %d emails, more than %d", h, MaxQueuedEmails)
			}
			ev, ok := next().(EventMsg)
			if !ok {
				t.Fatalf("message %d: not an event", i)
			}
			batch, ok := ev.Msg.(NewEmailsMsg)
			if !ok || len(batch.Emails) == 0 || len(batch.Emails) > MaxQueuedEmails {
				t.Fatalf("message %d: not a batch of new emails: %#v", i, ev.Msg)
			}
			for _, m := range batch.Emails {
				if m.Email.ID != fmt.Sprint(i) || m.Address != "a@b.test" {
					t.Fatalf("email %d out of order: %#v", i, m)
				}
				i++
			}
		}
	}
	read(0, MaxQueuedEmails)
	if m, ok := next().(EventMsg).Msg.(InboxReadyMsg); !ok || m.Address != "a@b.test" {
		t.Fatalf("inbox ready lost: %#v", m)
	}
	if m, ok := next().(EventMsg).Msg.(InboxGoneMsg); !ok || m.Address != "a@b.test" || m.Err.Error() != "not found" {
		t.Fatalf("inbox gone lost: %#v", m)
	}
	if m, ok := next().(EventMsg).Msg.(StateMsg); !ok || m.State.Kind != client.StateLive {
		t.Fatalf("state lost: %#v", m)
	}
	if m, ok := next().(EventMsg).Msg.(SyncErrorMsg); !ok || m.Err.Error() != "boom" {
		t.Fatalf("sync error lost: %#v", m)
	}
	read(MaxQueuedEmails, n)
	<-pushed
}

// TestAWaitingPushEndsWithTheFeed checks that a push waiting on a full
// queue returns once the program's context ends (nothing reads it then).
func TestAWaitingPushEndsWithTheFeed(t *testing.T) {
	_, src, cancel := start(t)
	for i := range MaxQueuedEmails {
		src.recv.NewEmail("a@b.test", model.Email{ID: fmt.Sprint(i)})
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		src.recv.NewEmail("a@b.test", model.Email{ID: "late"})
	}()
	cancel()
	<-done
}

// TestReaderWakesOnPush has the reader wait first, then pushes.
func TestReaderWakesOnPush(t *testing.T) {
	q, src, cancel := start(t)
	defer cancel()
	got := make(chan any, 1)
	go func() { got <- q.Next()() }()
	src.recv.InboxReady("x@y.test")
	if ev, ok := (<-got).(EventMsg); !ok || ev.Msg != (InboxReadyMsg{Address: "x@y.test"}) {
		t.Fatalf("reader got %#v", ev)
	}
}

// TestEndOfContextEndsTheFeed checks that the reader stops once the
// program's context ends and the queue is drained.
func TestEndOfContextEndsTheFeed(t *testing.T) {
	q, src, cancel := start(t)
	src.recv.InboxReady("x@y.test")
	cancel()
	if _, ok := q.Next()().(EventMsg); !ok {
		t.Fatal("a message queued before the end was lost")
	}
	if msg := q.Next()(); msg != nil {
		t.Fatalf("the feed delivered %#v after its end", msg)
	}
}

type failing struct{}

func (failing) Subscribe(Receiver) (func(), error) { return nil, errors.New("closed") }

func TestStartReportsSubscribeErrors(t *testing.T) {
	if _, err := Start(context.Background(), failing{}); err == nil {
		t.Fatal("a failed subscription started a feed")
	}
}

// TestABurstIsOneBatch queues a burst of new emails between other
// messages: each run of emails comes as one NewEmailsMsg, in order,
// nothing lost, and the other messages keep their place.
func TestABurstIsOneBatch(t *testing.T) {
	q, src, cancel := start(t)
	defer cancel()
	for i := range 500 {
		src.recv.NewEmail("a@b.test", model.Email{ID: fmt.Sprint(i)})
	}
	src.recv.InboxReady("a@b.test")
	for i := 500; i < 700; i++ {
		src.recv.NewEmail("c@d.test", model.Email{ID: fmt.Sprint(i)})
	}
	next := q.Next()
	first, ok := next().(EventMsg).Msg.(NewEmailsMsg)
	if !ok || len(first.Emails) != 500 {
		t.Fatalf("the first burst was not one batch of 500: %d emails", len(first.Emails))
	}
	for i, m := range first.Emails {
		if m.Email.ID != fmt.Sprint(i) || m.Address != "a@b.test" {
			t.Fatalf("email %d out of order: %#v", i, m)
		}
	}
	if m, ok := next().(EventMsg).Msg.(InboxReadyMsg); !ok || m.Address != "a@b.test" {
		t.Fatalf("the message between the bursts moved: %#v", m)
	}
	second, ok := next().(EventMsg).Msg.(NewEmailsMsg)
	if !ok || len(second.Emails) != 200 || second.Emails[0].Email.ID != "500" || second.Emails[199].Email.ID != "699" {
		t.Fatalf("the second burst was not one batch of 200 in order: %#v", second)
	}
}

// TestABurstSlowsTheFrames: a batch that follows the one before within
// BurstInterval and a frame is part of a burst, and the next batch waits
// a BurstInterval after it; a batch after a quiet spell is not, and the
// next one waits only a FrameInterval.
func TestABurstSlowsTheFrames(t *testing.T) {
	q, src, cancel := start(t)
	defer cancel()
	take := func(since time.Duration) (time.Duration, bool) {
		t.Helper()
		q.mu.Lock()
		q.lastBatch = time.Now().Add(-since)
		last := q.lastBatch
		q.mu.Unlock()
		src.recv.NewEmail("a@b.test", model.Email{ID: fmt.Sprint(since)})
		if _, ok := q.Next()().(EventMsg).Msg.(NewEmailsMsg); !ok {
			t.Fatal("no batch")
		}
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.lastBatch.Sub(last), q.burst
	}
	if gap, burst := take(time.Second); burst || gap < time.Second {
		t.Fatalf("a batch after a quiet second is part of a burst (%v) or came early (%v)", burst, gap)
	}
	if gap, burst := take(FrameInterval); !burst || gap < FrameInterval {
		t.Fatalf("a batch right after another is not part of a burst (%v) or came within a frame (%v)", burst, gap)
	}
	q.mu.Lock()
	last := q.lastBatch
	q.mu.Unlock()
	src.recv.NewEmail("a@b.test", model.Email{ID: "next"})
	q.Next()()
	q.mu.Lock()
	gap := q.lastBatch.Sub(last)
	q.mu.Unlock()
	if gap < BurstInterval {
		t.Fatalf("during a burst a batch came %v after the one before, under %v", gap, BurstInterval)
	}
}
