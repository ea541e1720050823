package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/store"
	"sandview/server/store/postgres"
)

// Replicas on a shared store (Config.StoreURL).
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
)

// openShared opens the shared store and takes the cluster's keys from it.
func (s *Server) openShared(ctx context.Context) error {
	if s.cfg.DataDir != "" {
		return errors.New("config: a data directory and a store URL exclude each other")
	}
	shared, err := postgres.Open(ctx, s.cfg.StoreURL, s.log)
	if err != nil {
		return err
	}
	s.store, s.shared = shared, shared
	if err := s.sharedKeys(ctx); err != nil {
		_ = shared.Close()
		return err
	}
	// The leader enforces the limits; a replica never evicts at ingest.
	s.reg = newRegistry(0, 0)
	s.reg.lookup = s.lookupInbox
	return nil
}

// sharedKeys takes the signing key and the API key from the store,
// storing this replica's (or new ones) when the store has none. An API key
// given that differs from the stored one is an error: replicas behind one
// load balancer must accept the same key.
func (s *Server) sharedKeys(ctx context.Context) error {
	if s.key == nil {
		seed, _, err := s.shared.Secret(ctx, secretSigningKey, func() ([]byte, error) {
			key, err := crypto.GenerateSigningKey()
			if err != nil {
				return nil, err
			}
			return key.MarshalBinary()
		})
		if err != nil {
			return fmt.Errorf("signing key: %w", err)
		}
		if s.key, err = crypto.SigningKeyFromBytes(seed); err != nil {
			return fmt.Errorf("signing key in the store: %w", err)
		}
	}
	given := s.cfg.APIKey
	stored, created, err := s.shared.Secret(ctx, secretAPIKey, func() ([]byte, error) {
		if given != "" {
			return []byte(given), nil
		}
		return []byte(newAPIKey()), nil
	})
	if err != nil {
		return fmt.Errorf("API key: %w", err)
	}
	if given != "" && string(stored) != given {
		return errors.New("config: the API key given differs from the one the store holds: give every replica the same key, or none to use the stored one")
	}
	s.cfg.APIKey = string(stored)
	s.apiKeyCreated = created && given == ""
	return nil
}

// lookupInbox finds an inbox the registry does not hold in the store (it
// was created on another replica) and registers it.
func (s *Server) lookupInbox(address string) (*liveInbox, bool) {
	ctx, cancel := context.WithTimeout(s.baseCtx, noticeTimeout)
	defer cancel()
	stored, err := s.shared.InboxByAddress(ctx, address)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.log.Warn("looking an inbox up in the store failed", "error", err)
		}
		return nil, false
	}
	return s.register(stored)
}

// inboxByHash returns the live inbox with that hash, from the registry or
// (on a shared store) the store.
func (s *Server) inboxByHash(ctx context.Context, hash string) (*liveInbox, bool) {
	if in, ok := s.reg.get(hash); ok {
		return in, true
	}
	if s.shared == nil {
		return nil, false
	}
	stored, err := s.shared.Inbox(ctx, hash)
	if err != nil {
		return nil, false
	}
	return s.register(stored)
}

// register adds a stored inbox to the registry, or returns the one it
// already holds.
func (s *Server) register(stored store.Inbox) (*liveInbox, bool) {
	in, err := s.newLiveInbox(stored)
	if err != nil {
		s.log.Error("an inbox in the store cannot be served", "inbox", stored.Address, "error", err)
		return nil, false
	}
	if err := s.reg.add(in); err != nil {
		return s.reg.get(stored.Hash)
	}
	return in, true
}

// onNotice applies another replica's change.
func (s *Server) onNotice(n store.Notice) {
	ctx, cancel := context.WithTimeout(s.baseCtx, noticeTimeout)
	defer cancel()
	switch n.Kind {
	case store.NoticeEmail:
		s.fanOut(ctx, n.Key)
	case store.NoticeEmailDeleted:
		s.reg.forget(n.Key.ID)
	case store.NoticeInboxDeleted:
		if in, ok := s.reg.get(n.Key.InboxHash); ok {
			s.reg.remove(in.Hash)
			s.webhooks.ForgetInbox(in.Address)
		}
	case store.NoticeWebhooks:
		s.reloadWebhooks(ctx)
	case store.NoticeDeliveries:
		s.webhooks.Wake()
	case store.NoticeResync:
		s.resync(ctx)
	}
}

// fanOut publishes another replica's email on this replica's bus (the
// event stream); its webhooks were queued by the replica that stored it.
func (s *Server) fanOut(ctx context.Context, key store.EmailKey) {
	if !s.bus.hasSubscribers() {
		return
	}
	in, ok := s.inboxByHash(ctx, key.InboxHash)
	if !ok {
		return
	}
	heads, err := s.shared.EmailHeads(ctx, []store.EmailKey{key})
	if err != nil || len(heads) == 0 {
		if err != nil {
			s.log.Warn("reading another replica's email failed; its stream event is lost", "error", err)
		}
		return
	}
	e := heads[0]
	stream := streamJSON(in.Hash, e.ID, nil, base64.StdEncoding.EncodeToString(e.Metadata))
	if in.Encrypted {
		meta, err := in.sealer.AppendJSON(nil, e.Metadata, nil)
		if err != nil {
			s.log.Error("rendering another replica's email failed", "email", e.ID, "error", err)
			return
		}
		stream = streamJSON(in.Hash, e.ID, meta, "")
	}
	s.bus.Publish(
		Event{Type: model.EventEmailReceived, At: e.ReceivedAt, Inbox: in.ref(), EmailID: e.ID, Stream: stream},
		Event{Type: model.EventEmailStored, At: e.ReceivedAt, Inbox: in.ref(), EmailID: e.ID})
}

// resync drops cached inboxes the store no longer holds and reloads the
// webhooks, after notices may have been missed.
func (s *Server) resync(ctx context.Context) {
	stored, err := s.store.Inboxes(ctx)
	if err != nil {
		s.log.Warn("resync after a lost connection failed", "error", err)
		return
	}
	held := make(map[string]bool, len(stored))
	for _, in := range stored {
		held[in.Hash] = true
	}
	for _, in := range s.reg.inboxes() {
		if !held[in.Hash] {
			s.reg.remove(in.Hash)
			s.webhooks.ForgetInbox(in.Address)
		}
	}
	s.reloadWebhooks(ctx)
	s.webhooks.Wake()
}

func (s *Server) reloadWebhooks(ctx context.Context) {
	if err := s.webhooks.Reload(ctx); err != nil {
		s.log.Warn("reloading webhooks failed", "error", err)
	}
}

// allInboxes lists the inboxes to act on for the whole service: on a
// shared store every stored one, else the registry's.
func (s *Server) allInboxes(ctx context.Context) ([]*liveInbox, error) {
	if s.shared == nil {
		return s.reg.inboxes(), nil
	}
	stored, err := s.store.Inboxes(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*liveInbox, 0, len(stored))
	for _, st := range stored {
		if in, ok := s.register(st); ok {
			out = append(out, in)
		}
	}
	return out, nil
}

// lead does the leader's periodic work when this replica leads.
func (s *Server) lead(ctx context.Context) {
	leading, err := s.shared.Lead(ctx)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("leadership check failed", "error", err)
	}
	if !leading {
		return
	}
	expired, err := s.shared.ExpireInboxes(ctx, s.cfg.Now())
	if err != nil && ctx.Err() == nil {
		s.log.Error("expiring inboxes failed", "error", err)
	}
	for _, gone := range expired {
		s.reg.remove(gone.Hash)
		s.publishDeleted(&liveInbox{Inbox: gone.Inbox}, gone.EmailIDs, model.DeleteReasonTTL)
		s.webhooks.ForgetInbox(gone.Address)
	}
	victims, err := s.shared.EnforceLimits(ctx, s.cfg.MaxEmailsPerInbox, s.cfg.MaxStoreBytes)
	if err != nil && ctx.Err() == nil {
		s.log.Error("enforcing storage limits failed", "error", err)
	}
	for _, v := range victims {
		s.reg.forget(v.ID)
		if in, ok := s.inboxByHash(ctx, v.InboxHash); ok {
			s.publishDeleted(in, []string{v.ID}, model.DeleteReasonEviction)
		}
	}
	if time.Since(s.orphansChecked) >= orphanAge {
		s.orphansChecked = time.Now()
		s.signOrphans(ctx)
	}
}

// signOrphans queues for signing the payloads a stopped replica left
// unsigned (reads sign them too).
func (s *Server) signOrphans(ctx context.Context) {
	keys, err := s.shared.Unsigned(ctx, orphanAge, orphanBatch)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("listing unsigned emails failed", "error", err)
		}
		return
	}
	refs := make([]emailRef, 0, len(keys))
	for _, k := range keys {
		if in, ok := s.inboxByHash(ctx, k.InboxHash); ok {
			refs = append(refs, emailRef{inbox: in, id: k.ID})
		}
	}
	s.signer.enqueue(refs)
}
