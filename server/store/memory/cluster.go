package memory

import (
	"context"
	"slices"
	"time"

	"sandview/server/store"
)

// cluster is the memory store's part of store.Cluster (Lead and Secret
// are store.Solo's): each inbox counts its payload bytes and its unsigned
// emails as they are put and deleted (account), so that the leader's
// periodic calls cost the inboxes, not the emails, when there is nothing
// to do.
type cluster struct{ m *Store }

// account updates the inbox's counters for the email id replaced: old
// (nil: it is new) by e (nil: it is deleted).
func (in *memInbox) account(id string, old, e *memEmail) {
	if old != nil {
		in.bytes -= old.size
		if old.Unsigned != 0 && (e == nil || e.Unsigned == 0) {
			delete(in.unsigned, id)
		}
	}
	if e == nil {
		return
	}
	in.bytes += e.size
	if e.Unsigned != 0 {
		if in.unsigned == nil {
			in.unsigned = make(map[string]time.Time)
		}
		if _, ok := in.unsigned[id]; !ok {
			in.unsigned[id] = time.Now()
		}
	}
}

// forgetLocked drops an inbox with its emails and chaos config (its
// webhooks are the caller's to drop, outside the lock).
func (m *Store) forgetLocked(hash string) {
	if in, ok := m.inboxes[hash]; ok {
		if m.addresses[in.inbox.Address] == hash {
			delete(m.addresses, in.inbox.Address)
		}
		delete(m.inboxes, hash)
	}
	m.Chaos.ForgetInbox(hash)
}

// ExpireInboxes implements store.Cluster: the inboxes go as DeleteInbox
// takes them.
func (cl cluster) ExpireInboxes(ctx context.Context, now time.Time) ([]store.ExpiredInbox, error) {
	m := cl.m
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, store.ErrClosed
	}
	var out []store.ExpiredInbox
	for hash, in := range m.inboxes {
		if now.Before(in.inbox.ExpiresAt) {
			continue
		}
		out = append(out, store.ExpiredInbox{Inbox: in.inbox, EmailIDs: slices.Clone(in.ids)})
		m.forgetLocked(hash)
	}
	m.mu.Unlock()
	for _, gone := range out {
		if err := m.Webhooks.ForgetInbox(ctx, gone.Hash); err != nil {
			return out, err
		}
	}
	return out, nil
}

// EnforceLimits implements store.Cluster.
func (cl cluster) EnforceLimits(_ context.Context, maxPerInbox int, maxBytes int64) ([]store.EmailKey, error) {
	m := cl.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, store.ErrClosed
	}
	var victims []store.EmailKey
	var total int64
	for hash, in := range m.inboxes {
		if over := len(in.ids) - maxPerInbox; maxPerInbox > 0 && over > 0 {
			for _, id := range slices.Clone(in.ids[:over]) {
				victims = append(victims, store.EmailKey{InboxHash: hash, ID: id})
				m.deleteLocked(victims[len(victims)-1])
			}
		}
		total += in.bytes
	}
	if maxBytes > 0 && total > maxBytes {
		oldest := m.oldestLocked(total - maxBytes)
		for _, k := range oldest {
			m.deleteLocked(k)
		}
		victims = append(victims, oldest...)
	}
	slices.SortFunc(victims, store.CompareKeys)
	return victims, nil
}

// oldestLocked returns the oldest emails of all (by ID) whose sizes add
// up to at least excess.
func (m *Store) oldestLocked(excess int64) []store.EmailKey {
	var walks []store.InboxWalk
	for hash, in := range m.inboxes {
		if len(in.ids) > 0 {
			walks = append(walks, &cursor{hash: hash, in: in})
		}
	}
	oldest, _ := store.OldestBeyond(walks, excess) // Size never fails here
	return oldest
}

// cursor is a position in an inbox's emails (a store.InboxWalk).
type cursor struct {
	hash string
	in   *memInbox
	i    int
}

func (c *cursor) Key() store.EmailKey { return store.EmailKey{InboxHash: c.hash, ID: c.in.ids[c.i]} }

func (c *cursor) Size() (int64, error) { return c.in.emails[c.in.ids[c.i]].size, nil }

func (c *cursor) Next() bool {
	c.i++
	return c.i < len(c.in.ids)
}

// Unsigned implements store.Cluster.
func (cl cluster) Unsigned(_ context.Context, olderThan time.Duration, limit int) ([]store.EmailKey, error) {
	m := cl.m
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, store.ErrClosed
	}
	cutoff := time.Now().Add(-olderThan)
	var found []store.UnsignedEmail
	for hash, in := range m.inboxes {
		for id, at := range in.unsigned {
			if at.Before(cutoff) {
				found = append(found, store.UnsignedEmail{Key: store.EmailKey{InboxHash: hash, ID: id}, StoredAt: at})
			}
		}
	}
	return store.OldestUnsigned(found, limit), nil
}

// LastEmailID implements store.Store.
func (m *Store) LastEmailID(context.Context) (string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return "", store.ErrClosed
	}
	last := ""
	for _, in := range m.inboxes {
		if n := len(in.ids); n > 0 && in.ids[n-1] > last {
			last = in.ids[n-1]
		}
	}
	return last, nil
}
