package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/store"
)

// Replicas on a shared store (a store.Shared in Options.Store).
//
// Every replica serves every inbox: its registry is a cache of the store's
// inboxes, filled on a miss and emptied by the other replicas' notices.
// Mail one replica commits reaches the event streams of the others through
// the store's notices (ids only: the metadata is read back). Webhook
// deliveries are queued in the email's own commit and claimed by one
// replica each. The leader (one at a time) expires inboxes, enforces the
// storage limits (so they may be exceeded for up to a SweepInterval) and
// signs payloads a stopped replica left unsigned.

// Secret names in a shared store.
const (
	secretSigningKey = "signing-key"
	secretAPIKey     = "api-key"
)

// Leader work pacing.
const (
	// orphanAge is how long an email may wait unsigned before the leader
	// signs it: the replica that stored it normally has by then.
	orphanAge = 10 * time.Second
	// orphanBatch bounds the emails one recovery pass queues.
	orphanBatch = 1000
	// noticeTimeout bounds the store reads a notice causes.
	noticeTimeout = 5 * time.Second
	// fanOutTimeout bounds the read of another replica's email for its
	// event: long enough to outlast a restart of PostgreSQL (a crash's
	// recovery takes seconds), so that the event is late, not lost.
	fanOutTimeout = time.Minute
)

// replica is the mode of a core on a store shared with other replicas.
type replica struct {
	c      *Core
	shared store.Shared
	// orphansChecked is when the leader last looked for unsigned emails
	// (the sweep's goroutine only).
	orphansChecked *time.Time
}

// openReplica takes the shared store and the cluster's keys from it.
func (c *Core) openReplica(ctx context.Context, shared store.Shared) error {
	r := replica{c: c, shared: shared, orphansChecked: new(time.Time)}
	c.store, c.mode = shared, r
	if err := r.keys(ctx); err != nil {
		return err
	}
	// The leader enforces the limits; a replica never evicts at arrival.
	c.reg = newRegistry(0, 0)
	c.reg.lookup = r.lookupInbox
	return nil
}

// sharedKeys takes the signing key and the API key from the store,
// storing this replica's (or new ones) when the store has none. An API key
// given that differs from the stored one is an error: replicas behind one
// load balancer must accept the same key.
func (r replica) keys(ctx context.Context) error {
	c := r.c
	if c.key == nil {
		seed, _, err := r.shared.Secret(ctx, secretSigningKey, func() ([]byte, error) {
			key, err := crypto.GenerateSigningKey()
			if err != nil {
				return nil, err
			}
			return key.MarshalBinary()
		})
		if err != nil {
			return fmt.Errorf("signing key: %w", err)
		}
		if c.key, err = crypto.SigningKeyFromBytes(seed); err != nil {
			return fmt.Errorf("signing key in the store: %w", err)
		}
	}
	given := c.apiKey
	stored, created, err := r.shared.Secret(ctx, secretAPIKey, func() ([]byte, error) {
		if given != "" {
			return []byte(given), nil
		}
		return []byte(NewAPIKey()), nil
	})
	if err != nil {
		return fmt.Errorf("API key: %w", err)
	}
	if given != "" && string(stored) != given {
		return errors.New("config: the API key given differs from the one the store holds: give every replica the same key, or none to use the stored one")
	}
	c.apiKey = string(stored)
	c.apiKeyCreated = created && given == ""
	return nil
}

// lookupInbox finds an inbox the registry does not hold in the store (it
// was created on another replica) and registers it.
func (r replica) lookupInbox(address string) (*Inbox, bool) {
	ctx, cancel := context.WithTimeout(r.c.baseCtx, noticeTimeout)
	defer cancel()
	stored, err := r.shared.InboxByAddress(ctx, address)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			r.c.log.Warn("looking an inbox up in the store failed", "error", err)
		}
		return nil, false
	}
	return r.c.Inboxes().register(stored)
}

// loadEmails starts the id sequence: emails are not accounted (the leader
// enforces the limits) and unsigned ones are the leader's recovery pass's.
func (r replica) loadEmails(context.Context, map[string]*Inbox) error {
	r.c.ids = newIDGenerator(uint64(time.Now().UnixNano()), nil)
	return nil
}

// start listens for the other replicas' notices.
func (r replica) start(ctx context.Context) error { return r.shared.Listen(ctx, r.onNotice) }

// onNotice applies another replica's change.
func (r replica) onNotice(n store.Notice) {
	c := r.c
	timeout := noticeTimeout
	if n.Kind == store.NoticeEmail {
		timeout = fanOutTimeout
	}
	ctx, cancel := context.WithTimeout(c.baseCtx, timeout)
	defer cancel()
	switch n.Kind {
	case store.NoticeEmail:
		r.fanOut(ctx, n.Key)
	case store.NoticeEmailDeleted:
		c.reg.forget(n.Key.ID)
	case store.NoticeInboxDeleted:
		if in, ok := c.reg.get(n.Key.InboxHash); ok {
			c.reg.remove(in.Hash)
			c.hooks.ForgetInbox(in.Address)
		}
	case store.NoticeWebhooks:
		r.reloadWebhooks(ctx)
	case store.NoticeDeliveries:
		c.hooks.Wake()
	case store.NoticeResync:
		r.resync(ctx)
	case store.NoticeChaos:
		r.chaosNotice(ctx, n)
	}
}

// fanOut publishes another replica's email on this replica's bus (the
// event stream); its webhooks were queued by the replica that stored it.
func (r replica) fanOut(ctx context.Context, key store.EmailKey) {
	c := r.c
	if !c.bus.hasSubscribers() {
		return
	}
	in, ok := c.Inboxes().ByHash(ctx, key.InboxHash)
	if !ok {
		return
	}
	heads, err := r.emailHeads(ctx, key)
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
func (r replica) emailHeads(ctx context.Context, key store.EmailKey) ([]*store.Email, error) {
	for {
		heads, err := r.shared.EmailHeads(ctx, []store.EmailKey{key})
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
func (r replica) resync(ctx context.Context) {
	c := r.c
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
	r.reloadWebhooks(ctx)
	c.hooks.Wake()
}

func (r replica) reloadWebhooks(ctx context.Context) {
	if err := r.c.hooks.Reload(ctx); err != nil {
		r.c.log.Warn("reloading webhooks failed", "error", err)
	}
}

// sweep settles this replica's arrivals in doubt, and does the leader's
// periodic work when this replica leads.
func (r replica) sweep(ctx context.Context) {
	c := r.c
	c.settleDoubts(ctx, r.shared.EmailHeads)
	leading, err := r.shared.Lead(ctx)
	if err != nil && ctx.Err() == nil {
		c.log.Warn("leadership check failed", "error", err)
	}
	if !leading {
		return
	}
	expired, err := r.shared.ExpireInboxes(ctx, c.opts.Now())
	if err != nil && ctx.Err() == nil {
		c.log.Error("expiring inboxes failed", "error", err)
	}
	for _, gone := range expired {
		c.reg.remove(gone.Hash)
		in := &Inbox{Inbox: gone.Inbox}
		c.publishDeleted(in, gone.EmailIDs, model.DeleteReasonTTL)
		c.publishInboxDeleted(in, model.DeleteReasonTTL)
		c.hooks.ForgetInbox(gone.Address)
	}
	victims, err := r.shared.EnforceLimits(ctx, c.opts.MaxEmailsPerInbox, c.opts.MaxStoreBytes)
	if err != nil && ctx.Err() == nil {
		c.log.Error("enforcing storage limits failed", "error", err)
	}
	for _, v := range victims {
		c.reg.forget(v.ID)
		if in, ok := c.Inboxes().ByHash(ctx, v.InboxHash); ok {
			c.publishDeleted(in, []string{v.ID}, model.DeleteReasonEviction)
		}
	}
	if time.Since(*r.orphansChecked) >= orphanAge {
		*r.orphansChecked = time.Now()
		r.signOrphans(ctx)
	}
}

// signOrphans queues for signing the payloads a stopped replica left
// unsigned (reads sign them too).
func (r replica) signOrphans(ctx context.Context) {
	c := r.c
	keys, err := r.shared.Unsigned(ctx, orphanAge, orphanBatch)
	if err != nil {
		if ctx.Err() == nil {
			c.log.Warn("listing unsigned emails failed", "error", err)
		}
		return
	}
	refs := make([]emailRef, 0, len(keys))
	for _, k := range keys {
		if in, ok := c.Inboxes().ByHash(ctx, k.InboxHash); ok {
			refs = append(refs, emailRef{inbox: in, id: k.ID})
		}
	}
	c.signer.enqueue(refs)
}
