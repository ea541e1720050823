package core

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"sandview/crypto"
	"sandview/server/store"
)

// Secret names in the store (see store.Cluster.Secret).
const (
	secretSigningKey = "signing-key"
	secretAPIKey     = "api-key"
)

// opening is the core's opening of its store: the keys, the registry and
// the email ID sequence, once, before it starts. The same for every
// store: no stored email is read.
type opening struct{ c *Core }

// openState takes the store, the keys kept in it, the inboxes it holds
// and the last email ID it holds.
func (o opening) openState(ctx context.Context) error {
	c := o.c
	if c.opts.Store == nil {
		return errors.New("core: no store")
	}
	c.store = c.opts.Store
	c.key = c.opts.SigningKey
	if err := o.keys(ctx); err != nil {
		return err
	}
	c.keyB64 = crypto.EncodeBase64URL(c.key.PublicKey())
	c.signer = newSigner(c.store, c.log)
	c.reg = newRegistry()
	c.reg.lookup = o.lookupInbox
	last, err := c.store.LastEmailID(ctx)
	if err != nil {
		return fmt.Errorf("read the last email id: %w", err)
	}
	c.ids = newIDGenerator(uint64(time.Now().UnixNano()), []string{last})
	return o.loadRegistry(ctx)
}

// keys takes the signing key and the API key from the store, storing
// these (or new ones) when the store has none. An API key given that
// differs from the stored one is an error: replicas behind one load
// balancer must accept the same key. (A store of one process keeps them
// for the process: the server keeps a data directory's in its files.)
func (o opening) keys(ctx context.Context) error {
	c := o.c
	if c.key == nil {
		seed, _, err := c.store.Secret(ctx, secretSigningKey, func() ([]byte, error) {
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
	stored, created, err := c.store.Secret(ctx, secretAPIKey, func() ([]byte, error) {
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

// loadRegistry registers the stored inboxes (the sweep expires those
// expired meanwhile).
func (o opening) loadRegistry(ctx context.Context) error {
	c := o.c
	inboxes, err := c.store.Inboxes(ctx)
	if err != nil {
		return err
	}
	now := c.opts.Now()
	for _, stored := range inboxes {
		if !now.Before(stored.ExpiresAt) {
			continue
		}
		in, err := c.Inboxes().newLive(stored)
		if err != nil {
			return fmt.Errorf("load inbox %s: %w", stored.Address, err)
		}
		if err := c.reg.add(in); err != nil {
			return fmt.Errorf("load inbox %s: %w", stored.Address, err)
		}
	}
	return nil
}

// lookupInbox finds an inbox the registry does not hold in the store (it
// was created on another replica) and registers it.
func (o opening) lookupInbox(address string) (*Inbox, bool) {
	c := o.c
	ctx, cancel := context.WithTimeout(c.baseCtx, noticeTimeout)
	defer cancel()
	stored, err := c.store.InboxByAddress(ctx, address)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			c.log.Warn("looking an inbox up in the store failed", "error", err)
		}
		return nil, false
	}
	return c.Inboxes().register(stored)
}

// NewAPIKey returns a random API key.
func NewAPIKey() string {
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	return "svk_" + crypto.EncodeBase64URL(raw[:])
}
