package core

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"sandview/crypto"
	"sandview/server/store"
)

// opening is the core's opening of its store: the mode, the keys and
// the registry, once, before it starts.
type opening struct{ c *Core }

// openState takes the store in the mode its kind chooses (a replica on
// a store.Shared, local on any other), takes the signing key and
// rebuilds the registry from the store.
func (o opening) openState(ctx context.Context) error {
	c := o.c
	if c.opts.Store == nil {
		return errors.New("core: no store")
	}
	c.key = c.opts.SigningKey
	var err error
	if shared, ok := c.opts.Store.(store.Shared); ok {
		err = o.openReplica(ctx, shared)
	} else {
		err = o.openLocal()
	}
	if err != nil {
		return err
	}
	c.keyB64 = crypto.EncodeBase64URL(c.key.PublicKey())
	c.signer = newSigner(c.store, c.log)
	return o.loadRegistry(ctx)
}

// loadRegistry registers the stored inboxes (dropping expired ones) and
// has the mode account their emails.
func (o opening) loadRegistry(ctx context.Context) error {
	c := o.c
	inboxes, err := c.store.Inboxes(ctx)
	if err != nil {
		return err
	}
	now := c.opts.Now()
	byHash := make(map[string]*Inbox, len(inboxes))
	for _, stored := range inboxes {
		if !now.Before(stored.ExpiresAt) {
			if err := c.store.DeleteInbox(ctx, stored.Hash); err != nil {
				return fmt.Errorf("drop expired inbox: %w", err)
			}
			continue
		}
		in, err := c.Inboxes().newLive(stored)
		if err != nil {
			return fmt.Errorf("load inbox %s: %w", stored.Address, err)
		}
		if err := c.reg.add(in); err != nil {
			return fmt.Errorf("load inbox %s: %w", stored.Address, err)
		}
		byHash[in.Hash] = in
	}
	return c.mode.loadEmails(ctx, byHash)
}

// NewAPIKey returns a random API key.
func NewAPIKey() string {
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	return "svk_" + crypto.EncodeBase64URL(raw[:])
}
