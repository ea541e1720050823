package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"sandview/crypto"
	"sandview/server/store"
)

// openState loads the signing key, opens the store and rebuilds the
// registry from it.
func (s *Server) openState(ctx context.Context) error {
	s.key = s.cfg.SigningKey
	switch {
	case s.cfg.StoreURL != "":
		if err := s.openShared(ctx); err != nil {
			return err
		}
	case s.cfg.DataDir != "":
		if err := os.MkdirAll(s.cfg.DataDir, 0o700); err != nil {
			return fmt.Errorf("create data directory: %w", err)
		}
		if s.key == nil {
			key, err := loadOrCreateSigningKey(s.cfg.DataDir)
			if err != nil {
				return err
			}
			s.key = key
		}
		db, err := store.OpenBolt(filepath.Join(s.cfg.DataDir, storeFile))
		if err != nil {
			return err
		}
		s.store = db
	default:
		if s.key == nil {
			key, err := crypto.GenerateSigningKey()
			if err != nil {
				return err
			}
			s.key = key
		}
		s.store = store.NewMemory()
	}
	s.keyB64 = crypto.EncodeBase64URL(s.key.PublicKey())
	s.signer = newSigner(s.store, s.log)
	if err := s.loadRegistry(ctx); err != nil {
		_ = s.store.Close()
		return err
	}
	return nil
}

// loadRegistry registers the stored inboxes (dropping expired ones) and
// accounts their emails.
func (s *Server) loadRegistry(ctx context.Context) error {
	inboxes, err := s.store.Inboxes(ctx)
	if err != nil {
		return err
	}
	now := s.cfg.Now()
	byHash := make(map[string]*liveInbox, len(inboxes))
	for _, stored := range inboxes {
		if !now.Before(stored.ExpiresAt) {
			if err := s.store.DeleteInbox(ctx, stored.Hash); err != nil {
				return fmt.Errorf("drop expired inbox: %w", err)
			}
			continue
		}
		in, err := s.newLiveInbox(stored)
		if err != nil {
			return fmt.Errorf("load inbox %s: %w", stored.Address, err)
		}
		if err := s.reg.add(in); err != nil {
			return fmt.Errorf("load inbox %s: %w", stored.Address, err)
		}
		byHash[in.Hash] = in
	}
	if s.shared != nil {
		// Emails are not accounted (the leader enforces the limits) and
		// unsigned ones are the leader's recovery pass's.
		s.ids = newIDGenerator(uint64(time.Now().UnixNano()), nil)
		return nil
	}
	var entries []*liveEmail
	var unsigned []emailRef
	err = s.store.ForEachEmail(ctx, func(info store.EmailInfo) error {
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
	s.signer.enqueue(unsigned)
	sortByID(entries)
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		s.reg.track(e)
		ids = append(ids, e.id)
	}
	s.ids = newIDGenerator(uint64(time.Now().UnixNano()), ids)
	return nil
}

// newLiveInbox prepares a stored inbox for serving.
func (s *Server) newLiveInbox(stored store.Inbox) (*liveInbox, error) {
	in := &liveInbox{Inbox: stored}
	if stored.Encrypted {
		sealer, err := crypto.NewSealer(stored.ClientKemPk, s.key, s.cfg.EncryptionContext)
		if err != nil {
			return nil, err
		}
		in.sealer = sealer
	}
	return in, nil
}
