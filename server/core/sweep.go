package core

import (
	"context"
	"time"

	"sandview/model"
)

// The sweep, every SweepInterval, the same on every store: keep the
// catch-all inbox alive, settle this process's arrivals in doubt, and,
// when this process leads (the one process of a memory or bbolt store
// always does; of the replicas on PostgreSQL one at a time), have the
// store expire inboxes, enforce the storage limits (so an inbox may
// exceed them for up to a SweepInterval) and list the emails a stopped
// process left unsigned, to sign them.

// Leader work pacing.
const (
	// orphanAge is how long an email may wait unsigned before the leader
	// signs it: the process that stored it normally has by then.
	orphanAge = 10 * time.Second
	// orphanBatch bounds the emails one recovery pass queues.
	orphanBatch = 1000
)

// sweep is the periodic work; the core runs it every SweepInterval.
func (c *Core) sweep() {
	ctx := c.baseCtx
	if err := c.Inboxes().keepCatchAll(ctx); err != nil && ctx.Err() == nil {
		c.log.Error("keeping the catch-all inbox failed", "error", err)
	}
	doubtWork{c}.settleDoubts(ctx)
	leading, err := c.store.Lead(ctx)
	if err != nil && ctx.Err() == nil {
		c.log.Warn("leadership check failed", "error", err)
	}
	if !leading {
		return
	}
	c.expireInboxes(ctx)
	c.enforceLimits(ctx)
	if time.Since(c.orphansChecked) >= orphanAge {
		c.orphansChecked = time.Now()
		c.signOrphans(ctx)
	}
}

// expireInboxes deletes every inbox whose TTL has run out, with its
// emails (email.deleted, reason ttl).
func (c *Core) expireInboxes(ctx context.Context) {
	expired, err := c.store.ExpireInboxes(ctx, c.opts.Now())
	if err != nil && ctx.Err() == nil {
		c.log.Error("expiring inboxes failed", "error", err)
	}
	for _, gone := range expired {
		c.reg.remove(gone.Hash)
		in := &Inbox{Inbox: gone.Inbox}
		c.publishDeleted(in, gone.EmailIDs, model.DeleteReasonTTL)
		c.publishInboxDeleted(in, model.DeleteReasonTTL)
		c.hooks.ForgetInbox(gone.Address)
		c.log.Debug("inbox expired", "inbox", gone.Address, "emails", len(gone.EmailIDs))
	}
}

// enforceLimits deletes the oldest emails beyond the storage limits
// (email.deleted, reason eviction).
func (c *Core) enforceLimits(ctx context.Context) {
	if c.opts.MaxEmailsPerInbox <= 0 && c.opts.MaxStoreBytes <= 0 {
		return
	}
	victims, err := c.store.EnforceLimits(ctx, c.opts.MaxEmailsPerInbox, c.opts.MaxStoreBytes)
	if err != nil && ctx.Err() == nil {
		c.log.Error("enforcing storage limits failed", "error", err)
	}
	for _, v := range victims {
		if in, ok := c.Inboxes().ByHash(ctx, v.InboxHash); ok {
			c.publishDeleted(in, []string{v.ID}, model.DeleteReasonEviction)
		}
	}
}

// signOrphans queues for signing the payloads a stopped process left
// unsigned (reads sign them too).
func (c *Core) signOrphans(ctx context.Context) {
	keys, err := c.store.Unsigned(ctx, orphanAge, orphanBatch)
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
