package client

import (
	"context"
	"fmt"
	"sync"

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

// subscriptionFunc adapts a function to Subscription; the function runs
// once however often Unsubscribe is called.
type subscriptionFunc func()

func (f subscriptionFunc) Unsubscribe() { f() }

func onceSubscription(fn func()) Subscription { return subscriptionFunc(sync.OnceFunc(fn)) }

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
	return i.subscribe(i.c.ctx, fn, nil, nil)
}

// Watch returns a channel of the emails that arrive in the inbox from now
// on (see OnNewEmail). The channel is closed when ctx ends, the client is
// closed or the inbox is removed from the client. Read it promptly: a
// stalled reader holds back later emails (they queue, nothing is lost).
func (i *Inbox) Watch(ctx context.Context) (<-chan model.Email, error) {
	ch := make(chan model.Email)
	var disp *dispatcher[model.Email]
	send := func(e model.Email) {
		select {
		case ch <- e:
		case <-disp.done:
		}
	}
	sub, err := i.subscribe(ctx, send, func() { close(ch) }, &disp)
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, sub.Unsubscribe)
	return ch, nil
}

// subscribe registers fn for the inbox's new mail; onExit runs when the
// subscription's goroutine ends. When dispOut is set it receives the
// dispatcher before any email can be delivered.
func (i *Inbox) subscribe(seedCtx context.Context, fn func(model.Email), onExit func(), dispOut **dispatcher[model.Email]) (Subscription, error) {
	d := i.c.dl()
	disp := newDispatcher[model.Email](onExit)
	if dispOut != nil {
		*dispOut = disp
	}
	disp.add(fn)
	id, err := d.subscribe(seedCtx, i, sink{deliver: disp.push, ended: disp.stop}, true)
	if err != nil {
		disp.stop()
		return nil, err
	}
	stopOnClose := context.AfterFunc(i.c.ctx, disp.stop)
	hash := i.info.InboxHash
	return onceSubscription(func() {
		stopOnClose()
		d.unsubscribe(hash, id)
		disp.stop()
	}), nil
}

// Monitor delivers the new mail of several inboxes to its handlers as
// (inbox, email) events.
type Monitor struct {
	c    *Client
	disp *dispatcher[inboxEmail]

	mu       sync.Mutex
	sinks    map[string]int // inbox hash -> sink id in the delivery engine
	follower int            // id in the follower list; -1 when not following
	done     bool
}

type inboxEmail struct {
	inbox *Inbox
	email model.Email
	ready bool // not an email: the inbox started delivering
}

// WatchInboxes returns a monitor of the new mail of the inboxes (an empty
// list gives a valid monitor that delivers nothing). Events are held until
// the first handler is added with On.
func (c *Client) WatchInboxes(inboxes []*Inbox) (*Monitor, error) {
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	m := c.newMonitor()
	if len(inboxes) == 0 {
		return m, nil
	}
	sinks := make([]sink, len(inboxes))
	for k, in := range inboxes {
		sinks[k] = m.sinkFor(in)
	}
	ids, err := c.dl().subscribeAll(c.ctx, inboxes, sinks, true)
	if err != nil {
		m.disp.stop()
		return nil, err
	}
	m.mu.Lock()
	for k, in := range inboxes {
		m.keepLocked(in.info.InboxHash, ids[k])
	}
	m.mu.Unlock()
	return m, nil
}

// WatchAll returns a monitor of every inbox loaded in the client, now and
// later: inboxes created or imported afterwards join it, removed ones
// leave it. Inboxes are listed in the background to learn which emails
// exist; listing errors go to the sync-error callbacks and are retried, and
// an inbox delivers from the moment its listing succeeded.
func (c *Client) WatchAll() (*Monitor, error) {
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	m := c.newMonitor()
	d := c.dl()
	d.mu.Lock()
	m.follower = d.nextID
	d.nextID++
	d.followers[m.follower] = m
	d.mu.Unlock()
	if err := m.follow(c.Inboxes()); err != nil {
		m.Unsubscribe()
		return nil, err
	}
	return m, nil
}

func (c *Client) newMonitor() *Monitor {
	m := &Monitor{c: c, disp: newDispatcher[inboxEmail](nil), sinks: map[string]int{}, follower: -1}
	context.AfterFunc(c.ctx, m.disp.stop)
	return m
}

// follow watches the inboxes of the list the monitor does not watch yet,
// seeding in the background.
func (m *Monitor) follow(inboxes []*Inbox) error {
	for _, in := range inboxes {
		m.mu.Lock()
		_, watching := m.sinks[in.info.InboxHash]
		m.mu.Unlock()
		if watching {
			continue
		}
		if err := m.watch(m.c.ctx, in, false); err != nil {
			return err
		}
	}
	return nil
}

// watch adds one inbox; see delivery.subscribe for seedCtx and seedNow.
func (m *Monitor) watch(seedCtx context.Context, in *Inbox, seedNow bool) error {
	id, err := m.c.dl().subscribe(seedCtx, in, m.sinkFor(in), seedNow)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keepLocked(in.info.InboxHash, id)
	return nil
}

// sinkFor is the monitor's sink for one inbox.
func (m *Monitor) sinkFor(in *Inbox) sink {
	hash := in.info.InboxHash
	return sink{
		deliver: func(e model.Email) { m.disp.push(inboxEmail{inbox: in, email: e}) },
		ended: func() {
			m.mu.Lock()
			delete(m.sinks, hash)
			m.mu.Unlock()
		},
		ready: func() { m.disp.push(inboxEmail{inbox: in, ready: true}) },
	}
}

// keepLocked records the sink id of an inbox; a monitor that was stopped
// meanwhile, or that watches the inbox already (listed twice), gives it
// back.
func (m *Monitor) keepLocked(hash string, id int) {
	if m.done {
		m.c.dl().unsubscribe(hash, id)
		return
	}
	if _, ok := m.sinks[hash]; ok {
		m.c.dl().unsubscribe(hash, id)
		return
	}
	m.sinks[hash] = id
}

// On adds a handler of the monitor's events; handlers run in order on the
// monitor's own goroutine.
func (m *Monitor) On(fn func(*Inbox, model.Email)) {
	if fn == nil {
		return
	}
	m.disp.add(func(ev inboxEmail) {
		if !ev.ready {
			fn(ev.inbox, ev.email)
		}
	})
}

// OnReady adds a handler called, in order with the emails, when an inbox
// starts delivering: from then on every new email of it is delivered.
// What arrived before is in the inbox's list, so a UI that lists the inbox
// on this event misses nothing (WatchAll seeds in the background).
func (m *Monitor) OnReady(fn func(*Inbox)) {
	if fn == nil {
		return
	}
	m.disp.add(func(ev inboxEmail) {
		if ev.ready {
			fn(ev.inbox)
		}
	})
}

// Unsubscribe stops the monitor; it may be called any number of times.
func (m *Monitor) Unsubscribe() {
	m.mu.Lock()
	if m.done {
		m.mu.Unlock()
		return
	}
	m.done = true
	sinks := m.sinks
	m.sinks = map[string]int{}
	m.mu.Unlock()
	d := m.c.dl()
	if m.follower >= 0 {
		d.mu.Lock()
		delete(d.followers, m.follower)
		d.mu.Unlock()
	}
	d.unsubscribeAll(sinks)
	m.disp.stop()
}

// OnSyncError calls fn, on a goroutine of its own and in order, with every
// error of background delivery work (in addition to Options.OnSyncError,
// which is called synchronously).
func (c *Client) OnSyncError(fn func(error)) Subscription {
	d := c.dl()
	disp := newDispatcher[error](nil)
	disp.add(fn)
	context.AfterFunc(c.ctx, disp.stop)
	d.mu.Lock()
	id := d.nextID
	d.nextID++
	d.errListeners[id] = disp
	d.mu.Unlock()
	return onceSubscription(func() {
		d.mu.Lock()
		delete(d.errListeners, id)
		d.mu.Unlock()
		disp.stop()
	})
}

// dispatcher calls its functions with queued values, in order, on a
// goroutine of its own, so a slow callback never holds up delivery. Values
// wait while no function is registered. The queue is unbounded: nothing is
// dropped for a slow reader.
type dispatcher[T any] struct {
	mu        sync.Mutex
	cond      *sync.Cond
	queue     []T
	fns       []func(T)
	stopped   bool
	finishing bool
	done      chan struct{} // closed by stop
	onExit    func()
}

func newDispatcher[T any](onExit func()) *dispatcher[T] {
	d := &dispatcher[T]{done: make(chan struct{}), onExit: onExit}
	d.cond = sync.NewCond(&d.mu)
	go d.loop()
	return d
}

func (d *dispatcher[T]) push(v T) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped || d.finishing {
		return
	}
	d.queue = append(d.queue, v)
	d.cond.Signal()
}

func (d *dispatcher[T]) add(fn func(T)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.fns = append(d.fns[:len(d.fns):len(d.fns)], fn)
	d.cond.Signal()
}

// stop drops what is queued and ends the goroutine; no function starts
// after it returns.
func (d *dispatcher[T]) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return
	}
	d.stopped = true
	d.queue = nil
	close(d.done)
	d.cond.Broadcast()
}

// finish ends the goroutine once the queue is delivered.
func (d *dispatcher[T]) finish() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.finishing = true
	d.cond.Broadcast()
}

func (d *dispatcher[T]) loop() {
	if d.onExit != nil {
		defer d.onExit()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		for !d.stopped && (len(d.queue) == 0 || len(d.fns) == 0) {
			if d.finishing && len(d.queue) == 0 {
				return
			}
			d.cond.Wait()
		}
		if d.stopped {
			return
		}
		v := d.queue[0]
		var zero T
		d.queue[0] = zero
		d.queue = d.queue[1:]
		fns := d.fns
		for _, fn := range fns {
			if d.stopped {
				return
			}
			d.mu.Unlock()
			fn(v)
			d.mu.Lock()
		}
	}
}
