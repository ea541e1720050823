package core

import (
	"context"
	"encoding/json"
	"time"

	"sandview/model"
	"sandview/server/store"
)

// The store's feed (store.Feed) tells the core what other processes on
// the store (replicas) change; a store of one process tells nothing.

// Notice pacing.
const (
	// noticeTimeout bounds the store reads a notice causes.
	noticeTimeout = 5 * time.Second
	// fanOutTimeout bounds the read of another replica's email for its
	// event: long enough to outlast a restart of PostgreSQL (a crash's
	// recovery takes seconds), so that the event is late, not lost.
	fanOutTimeout = time.Minute
)

// notices is the core's handling of the store's feed: the changes
// other replicas announce, and the chaos actions it announces to them.
type notices struct{ c *Core }

// onNotice applies another replica's change.
func (nt notices) onNotice(n store.Notice) {
	c := nt.c
	timeout := noticeTimeout
	if n.Kind == store.NoticeEmail {
		timeout = fanOutTimeout
	}
	ctx, cancel := context.WithTimeout(c.baseCtx, timeout)
	defer cancel()
	switch n.Kind {
	case store.NoticeEmail:
		nt.fanOut(ctx, n.Key)
	case store.NoticeInboxDeleted:
		if in, ok := c.reg.get(n.Key.InboxHash); ok {
			c.reg.remove(in.Hash)
			c.hooks.ForgetInbox(in.Address)
		}
	case store.NoticeWebhooks:
		nt.reloadWebhooks(ctx)
	case store.NoticeDeliveries:
		c.hooks.Wake()
	case store.NoticeResync:
		nt.resync(ctx)
	case store.NoticeChaos:
		nt.chaosNotice(ctx, n)
	}
}

// fanOut publishes another replica's email on this replica's bus (the
// event stream); its webhooks were queued by the replica that stored it.
func (nt notices) fanOut(ctx context.Context, key store.EmailKey) {
	c := nt.c
	if !c.bus.hasSubscribers() {
		return
	}
	in, ok := c.Inboxes().ByHash(ctx, key.InboxHash)
	if !ok {
		return
	}
	heads, err := nt.emailHeads(ctx, key)
	if err != nil || len(heads) == 0 {
		if err != nil {
			c.log.Warn("reading another replica's email failed; its stream event is lost", "error", err)
		}
		return
	}
	e := heads[0]
	c.bus.Publish(
		Event{Type: model.EventEmailReceived, At: e.ReceivedAt, Inbox: in.ref(), EmailID: e.ID, inbox: in, metadata: e.Metadata},
		Event{Type: model.EventEmailStored, At: e.ReceivedAt, Inbox: in.ref(), EmailID: e.ID})
}

// headRetryPause is the pause before reading another replica's email
// again.
const headRetryPause = 20 * time.Millisecond

// emailHeads reads another replica's email, again after a failure until
// ctx ends: when the database cuts its connections, the store's pool
// still holds them, and each read on a cut one fails (and drops it) while
// a new connection would answer.
func (nt notices) emailHeads(ctx context.Context, key store.EmailKey) ([]*store.Email, error) {
	c := nt.c
	for {
		heads, err := c.store.EmailHeads(ctx, []store.EmailKey{key})
		if err == nil || ctx.Err() != nil {
			return heads, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(headRetryPause):
		}
	}
}

// resync drops cached inboxes the store no longer holds and reloads the
// webhooks, after notices may have been missed.
func (nt notices) resync(ctx context.Context) {
	c := nt.c
	stored, err := c.store.Inboxes(ctx)
	if err != nil {
		c.log.Warn("resync after a lost connection failed", "error", err)
		return
	}
	held := make(map[string]bool, len(stored))
	for _, in := range stored {
		held[in.Hash] = true
	}
	for _, in := range c.reg.inboxes() {
		if !held[in.Hash] {
			c.reg.remove(in.Hash)
			c.hooks.ForgetInbox(in.Address)
		}
	}
	nt.reloadWebhooks(ctx)
	c.hooks.Wake()
}

func (nt notices) reloadWebhooks(ctx context.Context) {
	c := nt.c
	if err := c.hooks.Reload(ctx); err != nil {
		c.log.Warn("reloading webhooks failed", "error", err)
	}
}

// announceChaos notifies the other replicas of a chaos action, for their
// watchers of the inbox hash; a lost notice is only logged.
func (nt notices) announceChaos(ctx context.Context, hash string, action model.ChaosAction) {
	c := nt.c
	data, err := json.Marshal(action)
	if err == nil {
		err = c.store.NotifyChaos(ctx, hash, data)
	}
	if err != nil {
		c.log.Warn("telling the other replicas of a chaos action failed", "error", err)
	}
}

// chaosNotice publishes another replica's chaos action on this replica's
// bus, for the watchers of its inbox here.
func (nt notices) chaosNotice(ctx context.Context, n store.Notice) {
	c := nt.c
	if !c.bus.hasSubscribers() {
		return
	}
	var action model.ChaosAction
	if err := json.Unmarshal(n.Data, &action); err != nil {
		c.log.Warn("another replica's chaos notice does not decode", "error", err)
		return
	}
	in, ok := c.Inboxes().ByHash(ctx, n.Key.InboxHash)
	if !ok {
		return
	}
	c.bus.Publish(Event{Type: EventChaos, At: c.opts.Now().UTC(), Inbox: in.ref(), Chaos: &action})
}
