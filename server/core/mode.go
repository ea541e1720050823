package core

import (
	"context"
	"errors"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/store"
)

// mode is what still differs between a core on a store of its own
// (local: memory or bbolt) and one on a store shared with other replicas
// (replica: PostgreSQL, see replica.go): the accounting of stored emails
// and the sweep. It is chosen once, when the core opens.
type mode interface {
	// loadEmails accounts the stored emails of the registered inboxes
	// (byHash) at start and starts the email id sequence.
	loadEmails(ctx context.Context, byHash map[string]*Inbox) error
	// sweep removes expired inboxes and enforces the storage limits
	// where the registry does not.
	sweep(ctx context.Context)
}

// local is the mode of a core with a store of its own: the registry
// accounts every email and evicts at arrival.
type local struct{ c *Core }

// openLocal takes the store as the core's own, with a new signing key
// unless one was given.
func (o opening) openLocal() error {
	c := o.c
	c.mode = local{c}
	c.reg = newRegistry(c.opts.MaxEmailsPerInbox, c.opts.MaxStoreBytes)
	c.store = c.opts.Store
	if c.key == nil {
		key, err := crypto.GenerateSigningKey()
		if err != nil {
			return err
		}
		c.key = key
	}
	return nil
}

// loadEmails accounts the stored emails in the background, so that a
// start does not take longer the more the store holds: the API answers
// at once (it reads the store), while the registry's accounting and new
// email IDs wait until every stored email is accounted (see
// registry.loading). A walk that fails is logged: the storage limits
// then count the emails it accounted and those since.
func (l local) loadEmails(_ context.Context, byHash map[string]*Inbox) error {
	c := l.c
	finish := c.reg.loading()
	ids, release := heldIDGenerator(uint64(time.Now().UnixNano()))
	c.ids = ids
	c.loops.Go(func() {
		var entries []*liveEmail
		var unsigned []emailRef
		var slab []liveEmail // allocated a block at a time
		last := ""
		err := c.store.ForEachEmail(c.baseCtx, func(info store.EmailInfo) error {
			last = max(last, info.ID)
			if in, ok := byHash[info.InboxHash]; ok {
				if len(slab) == cap(slab) {
					slab = make([]liveEmail, 0, 1024)
				}
				slab = append(slab, liveEmail{id: info.ID, inbox: in, size: info.Size})
				entries = append(entries, &slab[len(slab)-1])
				if info.Unsigned != 0 {
					unsigned = append(unsigned, emailRef{inbox: in, id: info.ID})
				}
			}
			return c.baseCtx.Err()
		})
		if err != nil && c.baseCtx.Err() == nil {
			c.log.Error("accounting the stored emails failed", "error", err)
		}
		release([]string{last})
		finish(entries)
		c.signer.enqueue(unsigned)
	})
	return nil
}

// sweep deletes every inbox whose TTL has run out, with its emails
// (email.deleted, reason ttl).
func (l local) sweep(ctx context.Context) {
	c := l.c
	for in, ids := range c.reg.expired(c.opts.Now()) {
		if err := c.store.DeleteInbox(ctx, in.Hash); err != nil {
			if !errors.Is(err, context.Canceled) {
				c.log.Error("deleting an expired inbox failed", "inbox", in.Address, "error", err)
			}
			continue
		}
		c.publishDeleted(in, ids, model.DeleteReasonTTL)
		c.publishInboxDeleted(in, model.DeleteReasonTTL)
		c.hooks.ForgetInbox(in.Address)
		c.log.Debug("inbox expired", "inbox", in.Address, "emails", len(ids))
	}
}
