package client

import (
	"context"
	"fmt"
	"sync"

	"sandview/client/internal/async"
	"sandview/client/internal/watch"
	"sandview/model"
)

// Subscription is a registration for events; Unsubscribe ends it.
type Subscription interface {
	// Unsubscribe stops delivery and releases what the subscription holds.
	// It may be called any number of times. A callback already running
	// when it is called finishes (Unsubscribe does not wait for it, so a
	// callback may unsubscribe itself); mail not yet handed to the callback
	// is dropped.
	Unsubscribe()
}

// subscriptionFunc adapts a function to Subscription.
type subscriptionFunc func()

func (f subscriptionFunc) Unsubscribe() { f() }

// onceSubscription is a Subscription that runs fn once however often
// Unsubscribe is called.
func onceSubscription(fn func()) Subscription { return subscriptionFunc(sync.OnceFunc(fn)) }

// subscribe adds subscribers for the inboxes (subs[k] for inboxes[k]) to the
// watch engine; see watch.Engine.Subscribe for seedCtx and seedNow.
func (l *live) subscribe(seedCtx context.Context, inboxes []*Inbox, subs []watch.Callbacks, seedNow bool) ([]int, error) {
	if l.closed() {
		return nil, ErrClientClosed
	}
	watches := make([]watch.Watch, len(inboxes))
	for k, in := range inboxes {
		if !l.reg.has(in) {
			return nil, fmt.Errorf("watch %s: the inbox is not loaded in this client", in.info.EmailAddress)
		}
		watches[k] = watch.Watch{Inbox: engineInbox{in}, Callbacks: subs[k]}
	}
	return l.engine.Subscribe(seedCtx, watches, seedNow)
}

// OnNewEmail calls fn for every email that arrives in the inbox from now
// on (the emails already there are not delivered), each once, with its
// full content, in the order they are fetched, on a goroutine of the
// subscription's own. The first subscription to an inbox lists it once to
// learn which emails exist; that listing's error is returned. Delivery
// ends when the inbox is removed from the client (DeleteInbox, Forget) or
// the client is closed. After Close it returns ErrClientClosed and
// connects nothing.
func (i *Inbox) OnNewEmail(fn func(model.Email)) (Subscription, error) {
	if fn == nil {
		return nil, fmt.Errorf("watch %s: the callback is nil", i.info.EmailAddress)
	}
	return i.c.subscribeInbox(i.c.ctx, i, fn, nil, nil)
}

// Watch returns a channel of the emails that arrive in the inbox from now
// on (see OnNewEmail). The channel is closed when ctx ends, the client is
// closed or the inbox is removed from the client. Read it promptly: a
// stalled reader holds back later emails (they queue, nothing is lost).
func (i *Inbox) Watch(ctx context.Context) (<-chan model.Email, error) {
	ch := make(chan model.Email)
	var q *async.Queue[model.Email]
	send := func(e model.Email) {
		select {
		case ch <- e:
		case <-q.Done():
		}
	}
	sub, err := i.c.subscribeInbox(ctx, i, send, func() { close(ch) }, &q)
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, sub.Unsubscribe)
	return ch, nil
}

// subscribeInbox registers fn for the new mail of inbox i; onExit runs
// when the subscription's goroutine ends. When queueOut is set it receives the
// queue before any email can be delivered.
func (l *live) subscribeInbox(seedCtx context.Context, i *Inbox, fn func(model.Email), onExit func(), queueOut **async.Queue[model.Email]) (Subscription, error) {
	q := async.NewQueue[model.Email](onExit)
	if queueOut != nil {
		*queueOut = q
	}
	q.Add(fn)
	ids, err := l.subscribe(seedCtx, []*Inbox{i}, []watch.Callbacks{{Deliver: q.Push, Ended: q.Stop}}, true)
	if err != nil {
		q.Stop()
		return nil, err
	}
	stopOnClose := context.AfterFunc(l.t.ctx, q.Stop)
	hash := i.info.InboxHash
	return onceSubscription(func() {
		stopOnClose()
		l.engine.Unsubscribe(map[string]int{hash: ids[0]})
		q.Stop()
	}), nil
}

// OnSyncError calls fn, on a goroutine of its own and in order, with every
// error of background delivery work (in addition to Options.OnSyncError,
// which is called synchronously).
func (l *live) OnSyncError(fn func(error)) Subscription {
	q := async.NewQueue[error](nil)
	q.Add(fn)
	context.AfterFunc(l.t.ctx, q.Stop)
	l.mu.Lock()
	id := l.nextID
	l.nextID++
	l.syncErrors[id] = q.Push
	l.mu.Unlock()
	return onceSubscription(func() {
		l.mu.Lock()
		delete(l.syncErrors, id)
		l.mu.Unlock()
		q.Stop()
	})
}
