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
func (c *Core) openLocal() error {
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

func (l local) loadEmails(ctx context.Context, byHash map[string]*Inbox) error {
	var entries []*liveEmail
	var unsigned []emailRef
	err := l.c.store.ForEachEmail(ctx, func(info store.EmailInfo) error {
		if in, ok := byHash[info.InboxHash]; ok {
			entries = append(entries, &liveEmail{id: info.ID, inbox: in, size: info.Size})
			if info.Unsigned != 0 {
				unsigned = append(unsigned, emailRef{inbox: in, id: info.ID})
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load emails: %w", err)
	}
	l.c.signer.enqueue(unsigned)
	sortByID(entries)
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		l.c.reg.track(e)
		ids = append(ids, e.id)
	}
	l.c.ids = newIDGenerator(uint64(time.Now().UnixNano()), ids)
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
