package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"sandview/model"
)

// SetCatchAll makes the inbox at address the catch-all: SMTP mail for any
// recipient, in any domain, that matches no live inbox is stored there,
// once per message, with its envelope and header recipients as sent.
// Webhooks and the event stream see it as mail of that inbox; the storage
// limits apply as to any mail.
//
// address must be in a served domain. When no inbox lives there the server
// creates one, plain, with the maximum TTL (an encryption policy of
// "always" forbids that: create an encrypted inbox at the address first).
// While the server runs it keeps the catch-all inbox alive, renewing its
// TTL, and creates it again if it is deleted. An encrypted inbox at the
// address is fine: catch-all mail is encrypted to its key like any other.
// "" turns the catch-all off.
func (c *Core) SetCatchAll(ctx context.Context, address string) error {
	address = strings.ToLower(strings.TrimSpace(address))
	if address == "" {
		c.catchAll.Store(nil)
		return nil
	}
	resolved, random, err := c.Inboxes().resolveAddress(&address)
	if err == nil && random {
		err = errors.New("it has no local part: give a whole address")
	}
	if err != nil {
		return fmt.Errorf("catch-all %s: %w", address, err)
	}
	c.catchAll.Store(&resolved)
	if err := c.Inboxes().keepCatchAll(ctx); err != nil {
		c.catchAll.Store(nil)
		return err
	}
	return nil
}

// CatchAll is the catch-all inbox's address, or "" when there is none.
func (c *Core) CatchAll() string {
	if p := c.catchAll.Load(); p != nil {
		return *p
	}
	return ""
}

// keepCatchAll creates the catch-all inbox when it does not live, and
// renews its TTL (to MaxTTL) once less than half of it is left.
func (i Inboxes) keepCatchAll(ctx context.Context) error {
	c := i.c
	address := c.CatchAll()
	if address == "" {
		return nil
	}
	now := c.opts.Now()
	in, ok := c.reg.byAddr(address, now)
	if !ok {
		plain, ttl := model.EncryptionPlain, int64(c.opts.MaxTTL/time.Second)
		_, err := i.Create(ctx, CreateRequest{EmailAddress: &address, Encryption: &plain, TTL: &ttl}, "")
		if errors.Is(err, ErrConflict) {
			return nil // created meanwhile, or an expired one not yet swept
		}
		if err != nil {
			return fmt.Errorf("create the catch-all inbox %s: %w", address, err)
		}
		c.log.Info("created the catch-all inbox", "inbox", address, "ttl", c.opts.MaxTTL)
		return nil
	}
	renewed, ok := c.reg.renew(in, now.UTC().Truncate(time.Millisecond), c.opts.MaxTTL)
	if !ok {
		return nil
	}
	if err := c.store.PutInbox(ctx, renewed); err != nil {
		return fmt.Errorf("renew the catch-all inbox %s: %w", address, err)
	}
	c.log.Debug("renewed the catch-all inbox", "inbox", address, "expiresAt", renewed.ExpiresAt)
	return nil
}
