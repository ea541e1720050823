package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sandview/model"
	"sandview/server/store"
)

// sweep, every SweepInterval until the server stops, keeps the catch-all
// inbox alive (see keepCatchAll) and removes expired inboxes (with a
// shared store, when this replica leads: see lead).
func (s *Server) sweep() {
	ticker := time.NewTicker(s.cfg.SweepInterval)
	defer ticker.Stop()
	for {
		select {
		case <-s.baseCtx.Done():
			return
		case <-ticker.C:
			if err := s.keepCatchAll(s.baseCtx); err != nil && s.baseCtx.Err() == nil {
				s.log.Error("keeping the catch-all inbox failed", "error", err)
			}
			if s.shared != nil {
				s.lead(s.baseCtx)
				continue
			}
			s.expireInboxes(s.baseCtx)
		}
	}
}

// expireInboxes deletes every inbox whose TTL has run out, with its emails
// (email.deleted, reason ttl).
func (s *Server) expireInboxes(ctx context.Context) {
	for in, ids := range s.reg.expired(s.cfg.Now()) {
		if err := s.store.DeleteInbox(ctx, in.Hash); err != nil {
			if !errors.Is(err, context.Canceled) {
				s.log.Error("deleting an expired inbox failed", "inbox", in.Address, "error", err)
			}
			continue
		}
		s.publishDeleted(in, ids, model.DeleteReasonTTL)
		s.webhooks.ForgetInbox(in.Address)
		s.log.Debug("inbox expired", "inbox", in.Address, "emails", len(ids))
	}
}

// deleteInbox removes a live inbox and its emails (reason manual); ok is
// false when there was no such inbox.
func (s *Server) deleteInbox(ctx context.Context, in *liveInbox) (bool, error) {
	var stored []string
	if s.shared != nil {
		// The registry knows only this replica's emails.
		stored, _ = s.store.IDs(ctx, in.Hash)
	}
	ids, ok := s.reg.remove(in.Hash)
	if !ok {
		return false, nil
	}
	if s.shared != nil {
		ids = stored
	}
	if err := s.store.DeleteInbox(ctx, in.Hash); err != nil {
		return true, fmt.Errorf("delete inbox %s: %w", in.Address, err)
	}
	s.publishDeleted(in, ids, model.DeleteReasonManual)
	s.webhooks.ForgetInbox(in.Address)
	return true, nil
}

// deleteEmail removes one email (reason manual).
func (s *Server) deleteEmail(ctx context.Context, in *liveInbox, id string) error {
	if err := s.store.DeleteEmail(ctx, store.EmailKey{InboxHash: in.Hash, ID: id}); err != nil {
		return err
	}
	s.reg.forget(id)
	s.publishDeleted(in, []string{id}, model.DeleteReasonManual)
	return nil
}

func (s *Server) publishDeleted(in *liveInbox, ids []string, reason string) {
	if len(ids) == 0 {
		return
	}
	now := s.cfg.Now().UTC()
	events := make([]Event, len(ids))
	for i, id := range ids {
		events[i] = Event{Type: model.EventEmailDeleted, At: now, Inbox: in.ref(), EmailID: id, Reason: reason}
	}
	s.publish(events...)
}
