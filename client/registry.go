package client

import (
	"errors"
	"strings"
)

// The loaded inboxes of a client (Client.inboxes, in load order, guarded
// by Client.mu). Every change is followed by inboxesChanged.

// sameInbox reports whether two addresses name the same inbox (lookups on
// the service are case-insensitive).
func sameInbox(a, b string) bool { return strings.EqualFold(a, b) }

// Inbox returns the loaded inbox with the address (case-insensitive).
func (c *Client) Inbox(address string) (*Inbox, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, in := range c.inboxes {
		if sameInbox(in.info.EmailAddress, address) {
			return in, true
		}
	}
	return nil, false
}

// Inboxes returns the loaded inboxes in load order.
func (c *Client) Inboxes() []*Inbox {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Inbox, len(c.inboxes))
	copy(out, c.inboxes)
	return out
}

// isLoaded reports whether an inbox with in's hash and address is loaded.
func (c *Client) isLoaded(in *Inbox) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, loaded := range c.inboxes {
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
func (c *Client) checkNotLoaded(in *Inbox) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, old := range c.inboxes {
		if clashes(old, in) {
			return &InboxAlreadyExistsError{Address: old.info.EmailAddress}
		}
	}
	return nil
}

// register adds an inbox. With replace, a loaded inbox with the same
// address or hash is dropped first; without it that is an
// InboxAlreadyExistsError.
func (c *Client) register(in *Inbox, replace bool) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClientClosed
	}
	kept := c.inboxes[:0:0]
	for _, old := range c.inboxes {
		if clashes(old, in) {
			if !replace {
				c.mu.Unlock()
				return &InboxAlreadyExistsError{Address: old.info.EmailAddress}
			}
			continue
		}
		kept = append(kept, old)
	}
	c.inboxes = append(kept, in)
	c.mu.Unlock()
	c.inboxesChanged()
	return nil
}

// forget drops the loaded inbox with the address, if any.
func (c *Client) forget(address string) {
	c.mu.Lock()
	n := len(c.inboxes)
	kept := c.inboxes[:0:0]
	for _, in := range c.inboxes {
		if !sameInbox(in.info.EmailAddress, address) {
			kept = append(kept, in)
		}
	}
	c.inboxes = kept
	c.mu.Unlock()
	if len(kept) != n {
		c.inboxesChanged()
	}
}

// forgetAll drops every loaded inbox.
func (c *Client) forgetAll() {
	c.mu.Lock()
	n := len(c.inboxes)
	c.inboxes = nil
	c.mu.Unlock()
	if n > 0 {
		c.inboxesChanged()
	}
}

// Forget drops a loaded inbox from the client without touching the server
// (the inbox keeps existing there). It reports whether one was loaded.
func (c *Client) Forget(address string) bool {
	_, ok := c.Inbox(address)
	if ok {
		c.forget(address)
	}
	return ok
}

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
	c.mu.Lock()
	followers := make([]*Monitor, 0, len(c.followers))
	for m := range c.followers {
		followers = append(followers, m)
	}
	c.mu.Unlock()
	for _, m := range followers {
		if err := m.follow(loaded); err != nil && !errors.Is(err, ErrClientClosed) {
			c.reportSyncError(err)
		}
	}
}
