package client

import (
	"context"
	"sync"

	"sandview/client/internal/async"
	"sandview/client/internal/watch"
	"sandview/model"
)

// Monitor delivers the new mail of several inboxes to its handlers as
// (inbox, email) events.
type Monitor struct {
	l *live
	// q queues the events for the handlers added with On, OnReady,
	// OnGone and OnDeleted, called on the monitor's goroutine. A direct monitor
	// (WatchAllDirect) has no queue: direct calls its handlers.
	q      *async.Queue[inboxEmail]
	direct func(inboxEmail)
	// metadataOnly: new mail is delivered with its metadata only
	// (MonitorHandlers.MetadataOnly).
	metadataOnly bool

	mu   sync.Mutex
	subs map[string]int // inbox hash -> subscriber id in the watch engine
	// gone holds the inbox hashes the server no longer knows: they are
	// not watched again.
	gone map[string]bool
	done bool
}

// inboxEmail is one event of a monitor: an email, or (ready) an inbox
// starting to deliver, or (gone set) an inbox the server no longer knows,
// or (deleted set) the id of an email deleted on the server, or (chaos
// set) a chaos action the server applied to mail for the inbox.
type inboxEmail struct {
	inbox   *Inbox
	email   model.Email
	ready   bool
	gone    error
	deleted string
	chaos   *model.ChaosAction
}

// WatchInboxes returns a monitor of the new mail of the inboxes (an empty
// list gives a valid monitor that delivers nothing). Events are held until
// the first handler is added with On.
func (l *live) WatchInboxes(inboxes []*Inbox) (*Monitor, error) {
	if l.closed() {
		return nil, ErrClientClosed
	}
	m := l.newMonitor()
	if len(inboxes) == 0 {
		return m, nil
	}
	subs := make([]watch.Callbacks, len(inboxes))
	for k, in := range inboxes {
		subs[k] = m.callbacksFor(in)
	}
	ids, err := l.subscribe(l.t.ctx, inboxes, subs, true)
	if err != nil {
		m.q.Stop()
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
func (l *live) WatchAll() (*Monitor, error) {
	if l.closed() {
		return nil, ErrClientClosed
	}
	return l.followAll(l.newMonitor())
}

// MonitorHandlers are the handlers of a direct monitor (WatchAllDirect);
// nil ones are skipped.
type MonitorHandlers struct {
	Email func(*Inbox, model.Email)
	Ready func(*Inbox)
	Gone  func(in *Inbox, err error)
	// Deleted is told the id of an email of the inbox deleted on the
	// server, by this client or another (see Monitor.OnDeleted).
	Deleted func(in *Inbox, emailID string)
	// Chaos is told each chaos action the server applied to mail for
	// the inbox (see Monitor.OnChaos).
	Chaos func(in *Inbox, a model.ChaosAction)
	// MetadataOnly delivers new mail with its metadata only (from, to,
	// subject, receivedAt; HasContent false) instead of fetching each
	// email in full: as the event stream's notification has it, or, for
	// mail a sync finds (after a reconnection, and all mail while
	// polling), as the inbox's listing has it. A burst then costs no
	// request per mail, and the caller fetches the content (Inbox.Email)
	// of what it shows. While another monitor of the client wants the
	// content, the mail comes in full.
	MetadataOnly bool
}

// WatchAllDirect is WatchAll without the monitor's own queue: the
// handlers are called on the goroutines that deliver (never while the
// client holds a lock), concurrently when several inboxes deliver at
// once. A handler may block to hold delivery back (back-pressure: the
// engine fetches no more while it waits); it must not wait for this
// client's calls. It is for a caller that queues the events itself, like
// a UI's event loop, so that mail crosses one queue. On, OnReady and
// OnGone do nothing on a direct monitor.
func (l *live) WatchAllDirect(h MonitorHandlers) (*Monitor, error) {
	if l.closed() {
		return nil, ErrClientClosed
	}
	m := &Monitor{l: l, subs: map[string]int{}, gone: map[string]bool{}, metadataOnly: h.MetadataOnly}
	m.direct = func(ev inboxEmail) {
		switch {
		case ev.ready:
			if h.Ready != nil {
				h.Ready(ev.inbox)
			}
		case ev.gone != nil:
			if h.Gone != nil {
				h.Gone(ev.inbox, ev.gone)
			}
		case ev.deleted != "":
			if h.Deleted != nil {
				h.Deleted(ev.inbox, ev.deleted)
			}
		case ev.chaos != nil:
			if h.Chaos != nil {
				h.Chaos(ev.inbox, *ev.chaos)
			}
		case h.Email != nil:
			h.Email(ev.inbox, ev.email)
		}
	}
	return l.followAll(m)
}

// followAll makes m follow every loaded inbox, now and later.
func (l *live) followAll(m *Monitor) (*Monitor, error) {
	l.mu.Lock()
	l.followers[m] = true
	l.mu.Unlock()
	if err := m.follow(l.reg.all()); err != nil {
		m.Unsubscribe()
		return nil, err
	}
	return m, nil
}

func (l *live) newMonitor() *Monitor {
	m := &Monitor{l: l, q: async.NewQueue[inboxEmail](nil), subs: map[string]int{}, gone: map[string]bool{}}
	context.AfterFunc(l.t.ctx, m.q.Stop)
	return m
}

// emit hands an event to the queue, or to the handlers of a direct
// monitor that is not stopped.
func (m *Monitor) emit(ev inboxEmail) {
	if m.q != nil {
		m.q.Push(ev)
		return
	}
	m.mu.Lock()
	done := m.done
	m.mu.Unlock()
	if !done {
		m.direct(ev)
	}
}

// follow watches the inboxes of the list the monitor does not watch yet
// (and that are not gone), seeding in the background.
func (m *Monitor) follow(inboxes []*Inbox) error {
	for _, in := range inboxes {
		m.mu.Lock()
		_, watching := m.subs[in.info.InboxHash]
		gone := m.gone[in.info.InboxHash]
		m.mu.Unlock()
		if watching || gone {
			continue
		}
		ids, err := m.l.subscribe(m.l.t.ctx, []*Inbox{in}, []watch.Callbacks{m.callbacksFor(in)}, false)
		if err != nil {
			return err
		}
		m.mu.Lock()
		m.keepLocked(in.info.InboxHash, ids[0])
		m.mu.Unlock()
	}
	return nil
}

// callbacksFor is the monitor's callbacks for one inbox.
func (m *Monitor) callbacksFor(in *Inbox) watch.Callbacks {
	hash := in.info.InboxHash
	return watch.Callbacks{
		Deliver: func(e model.Email) { m.emit(inboxEmail{inbox: in, email: e}) },
		Ended: func() {
			m.mu.Lock()
			delete(m.subs, hash)
			m.mu.Unlock()
		},
		Ready:        func() { m.emit(inboxEmail{inbox: in, ready: true}) },
		MetadataOnly: m.metadataOnly,
		Gone: func(err error) {
			m.mu.Lock()
			delete(m.subs, hash)
			m.gone[hash] = true
			m.mu.Unlock()
			m.emit(inboxEmail{inbox: in, gone: err})
		},
		Deleted: func(id string) { m.emit(inboxEmail{inbox: in, deleted: id}) },
		Chaos:   func(a model.ChaosAction) { m.emit(inboxEmail{inbox: in, chaos: &a}) },
	}
}

// keepLocked records the subscriber id of an inbox; a monitor that was stopped
// meanwhile, or that watches the inbox already (listed twice), gives it
// back.
func (m *Monitor) keepLocked(hash string, id int) {
	_, watching := m.subs[hash]
	if m.done || watching {
		m.l.engine.Unsubscribe(map[string]int{hash: id})
		return
	}
	m.subs[hash] = id
}

// On adds a handler of the monitor's events; handlers run in order on the
// monitor's own goroutine.
func (m *Monitor) On(fn func(*Inbox, model.Email)) {
	if fn == nil || m.q == nil {
		return
	}
	m.q.Add(func(ev inboxEmail) {
		if !ev.ready && ev.gone == nil && ev.deleted == "" && ev.chaos == nil {
			fn(ev.inbox, ev.email)
		}
	})
}

// OnGone adds a handler called, in order with the emails, when the server
// turns out not to know an inbox any more (deleted, expired, or lost in a
// restart of a server without persistence); err says how that was learnt.
// The monitor stops watching the inbox and does not watch it again.
func (m *Monitor) OnGone(fn func(in *Inbox, err error)) {
	if fn == nil || m.q == nil {
		return
	}
	m.q.Add(func(ev inboxEmail) {
		if ev.gone != nil {
			fn(ev.inbox, ev.gone)
		}
	})
}

// OnDeleted adds a handler called, in order with the emails, with the id
// of an email of a watched inbox deleted on the server, by this client or
// another (a user sharing the inbox). Only sandview's server tells, and
// only while the event stream is open: a caller that must not show
// deleted mail still lists the inbox now and then.
func (m *Monitor) OnDeleted(fn func(in *Inbox, emailID string)) {
	if fn == nil || m.q == nil {
		return
	}
	m.q.Add(func(ev inboxEmail) {
		if ev.deleted != "" {
			fn(ev.inbox, ev.deleted)
		}
	})
}

// OnChaos adds a handler called, in order with the emails, with each
// chaos action the server applied to mail for a watched inbox (a
// greylisting, a dropped connection, an error reply...). Only sandview's
// server tells, and only while the event stream is open.
func (m *Monitor) OnChaos(fn func(in *Inbox, a model.ChaosAction)) {
	if fn == nil || m.q == nil {
		return
	}
	m.q.Add(func(ev inboxEmail) {
		if ev.chaos != nil {
			fn(ev.inbox, *ev.chaos)
		}
	})
}

// OnReady adds a handler called, in order with the emails, when an inbox
// starts delivering: from then on every new email of it is delivered.
// What arrived before is in the inbox's list, so a UI that lists the inbox
// on this event misses nothing (WatchAll seeds in the background).
func (m *Monitor) OnReady(fn func(*Inbox)) {
	if fn == nil || m.q == nil {
		return
	}
	m.q.Add(func(ev inboxEmail) {
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
	subs := m.subs
	m.subs = map[string]int{}
	m.mu.Unlock()
	m.l.mu.Lock()
	delete(m.l.followers, m)
	m.l.mu.Unlock()
	m.l.engine.Unsubscribe(subs)
	if m.q != nil {
		m.q.Stop()
	}
}
