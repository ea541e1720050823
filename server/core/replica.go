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
// inboxes, filled on a miss and emptied by the other replicas' notices
// (notices.go). Mail one replica commits reaches the event streams of the
// others through the store's feed (ids only: the metadata is read back). Webhook
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
func (o opening) openReplica(ctx context.Context, shared store.Shared) error {
	c := o.c
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

// sweep settles this replica's arrivals in doubt, and does the leader's
// periodic work when this replica leads.
func (r replica) sweep(ctx context.Context) {
	c := r.c
	doubtWork{c}.settleDoubts(ctx)
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
