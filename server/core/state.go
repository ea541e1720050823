package core

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"sandview/crypto"
	"sandview/internal/securefile"
)

// openState opens the store in the mode the options choose, loads the
// signing key and rebuilds the registry from the store.
func (c *Core) openState(ctx context.Context) error {
	c.key = c.opts.SigningKey
	open := c.openLocal
	if c.opts.StoreURL != "" {
		open = func() error { return c.openReplica(ctx) }
	}
	if err := open(); err != nil {
		return err
	}
	c.keyB64 = crypto.EncodeBase64URL(c.key.PublicKey())
	c.signer = newSigner(c.store, c.log)
	if err := c.loadRegistry(ctx); err != nil {
		_ = c.store.Close()
		return err
	}
	return nil
}

// loadRegistry registers the stored inboxes (dropping expired ones) and
// has the mode account their emails.
func (c *Core) loadRegistry(ctx context.Context) error {
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

// loadOrCreateSigningKey returns the signing key kept in dir, generating
// and saving one on first use.
func loadOrCreateSigningKey(dir string) (*crypto.SigningKey, error) {
	path := filepath.Join(dir, signingKeyFile)
	data, err := os.ReadFile(path)
	if err == nil {
		key, err := crypto.SigningKeyFromBytes(data)
		if err != nil {
			return nil, fmt.Errorf("load signing key %s: %w", path, err)
		}
		return key, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read signing key: %w", err)
	}
	key, err := crypto.GenerateSigningKey()
	if err != nil {
		return nil, err
	}
	seed, err := key.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode signing key: %w", err)
	}
	if err := securefile.Write(path, seed); err != nil {
		return nil, fmt.Errorf("save signing key: %w", err)
	}
	return key, nil
}
