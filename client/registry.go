package client

import (
	"context"
	"errors"
	"strings"
	"sync"
)

// sameInbox reports whether two addresses name the same inbox (lookups on
// the service are case-insensitive).
func sameInbox(a, b string) bool { return strings.EqualFold(a, b) }

// registry holds the loaded inboxes of a client, in load order; every
// change is followed by changed (the client's inboxesChanged).
type registry struct {
	ctx     context.Context // the client's: once it ends, nothing is added
	changed func()

	mu      sync.Mutex
	inboxes []*Inbox
}

// get returns the loaded inbox with the address (case-insensitive).
func (r *registry) get(address string) (*Inbox, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, in := range r.inboxes {
		if sameInbox(in.info.EmailAddress, address) {
			return in, true
		}
	}
	return nil, false
}

// all returns the loaded inboxes in load order.
func (r *registry) all() []*Inbox {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Inbox, len(r.inboxes))
	copy(out, r.inboxes)
	return out
}

// has reports whether an inbox with in's hash and address is loaded.
func (r *registry) has(in *Inbox) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, loaded := range r.inboxes {
		if loaded.info.InboxHash == in.info.InboxHash && sameInbox(loaded.info.EmailAddress, in.info.EmailAddress) {
			return true
		}
	}
	return false
}

// clashes reports whether two inboxes share their address or their hash.
func clashes(a, b *Inbox) bool {
	return sameInbox(a.info.EmailAddress, b.info.EmailAddress) || a.info.InboxHash == b.info.InboxHash
}

// checkNotLoaded rejects an inbox whose address or hash is loaded already.
func (r *registry) checkNotLoaded(in *Inbox) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, old := range r.inboxes {
		if clashes(old, in) {
			return &InboxAlreadyExistsError{Address: old.info.EmailAddress}
		}
	}
	return nil
}

// add loads an inbox. With replace, a loaded inbox with the same address
// or hash is dropped first; without it that is an
// InboxAlreadyExistsError. After Close it returns ErrClientClosed.
func (r *registry) add(in *Inbox, replace bool) error {
	r.mu.Lock()
	if r.ctx.Err() != nil {
		r.mu.Unlock()
		return ErrClientClosed
	}
	kept := r.inboxes[:0:0]
	for _, old := range r.inboxes {
		if clashes(old, in) {
			if !replace {
				r.mu.Unlock()
				return &InboxAlreadyExistsError{Address: old.info.EmailAddress}
			}
			continue
		}
		kept = append(kept, old)
	}
	r.inboxes = append(kept, in)
	r.mu.Unlock()
	r.changed()
	return nil
}

// remove drops the loaded inbox with the address, if any, and reports
// whether there was one.
func (r *registry) remove(address string) bool {
	r.mu.Lock()
	n := len(r.inboxes)
	kept := r.inboxes[:0:0]
	for _, in := range r.inboxes {
		if !sameInbox(in.info.EmailAddress, address) {
			kept = append(kept, in)
		}
	}
	r.inboxes = kept
	r.mu.Unlock()
	if len(kept) == n {
		return false
	}
	r.changed()
	return true
}

// clear drops every loaded inbox.
func (r *registry) clear() {
	r.mu.Lock()
	n := len(r.inboxes)
	r.inboxes = nil
	r.mu.Unlock()
	if n > 0 {
		r.changed()
	}
}

// Inbox returns the loaded inbox with the address (case-insensitive).
func (c *Client) Inbox(address string) (*Inbox, bool) { return c.loaded.get(address) }

// Inboxes returns the loaded inboxes in load order.
func (c *Client) Inboxes() []*Inbox { return c.loaded.all() }

// Forget drops a loaded inbox from the client without touching the server
// (the inbox keeps existing there). It reports whether one was loaded.
func (c *Client) Forget(address string) bool { return c.loaded.remove(address) }

// inboxesChanged follows a change of the loaded inboxes: the delivery
// engine ends the watches of removed inboxes (reconnecting the stream with
// the new hash list), and monitors of every inbox (WatchAll) pick up new
// ones.
func (c *Client) inboxesChanged() {
	loaded := c.Inboxes()
	hashes := make(map[string]bool, len(loaded))
	for _, in := range loaded {
		hashes[in.info.InboxHash] = true
	}
	c.engine.InboxesChanged(hashes)
	c.live.mu.Lock()
	followers := make([]*Monitor, 0, len(c.followers))
	for m := range c.followers {
		followers = append(followers, m)
	}
	c.live.mu.Unlock()
	for _, m := range followers {
		if err := m.follow(loaded); err != nil && !errors.Is(err, ErrClientClosed) {
			c.reportSyncError(err)
		}
	}
}
