package client

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"sandview/crypto"
	"sandview/model"
)

// Inbox is a loaded inbox: its server description and, when encrypted, its
// key pair and the server key pinned at creation. It is safe for concurrent
// use.
type Inbox struct {
	c         *Client
	info      model.Inbox
	emailAuth *bool  // as known from creation or import; nil when unknown
	secretKey []byte // ML-KEM-768 secret key; nil for a plain inbox
	serverKey []byte // pinned ML-DSA-65 public key; nil for a plain inbox

	openerMu sync.Mutex
	opener   *crypto.Opener // built once, with the server's context string
}

// Info returns the inbox as the service describes it.
func (i *Inbox) Info() model.Inbox { return i.info }

// Address returns the inbox's email address.
func (i *Inbox) Address() string { return i.info.EmailAddress }

// Hash returns the inbox hash (the id used by the event stream).
func (i *Inbox) Hash() string { return i.info.InboxHash }

// Encrypted reports whether the inbox's mail is encrypted.
func (i *Inbox) Encrypted() bool { return i.info.Encrypted }

// ExpiresAt returns when the inbox's TTL runs out.
func (i *Inbox) ExpiresAt() time.Time { return i.info.ExpiresAt }

// IsExpired reports whether the inbox's TTL has run out.
func (i *Inbox) IsExpired() bool { return i.info.IsExpired(time.Now()) }

// Client returns the client the inbox belongs to.
func (i *Inbox) Client() *Client { return i.c }

// Export returns the inbox in the portable export format. The result holds
// the secret key of an encrypted inbox: handle it as a secret.
func (i *Inbox) Export() (model.ExportedInbox, error) {
	d := model.ExportedInbox{
		Version:      model.ExportVersion,
		EmailAddress: i.info.EmailAddress,
		ExpiresAt:    formatTime(i.info.ExpiresAt),
		InboxHash:    i.info.InboxHash,
		Encrypted:    i.info.Encrypted,
		EmailAuth:    i.emailAuth,
		ExportedAt:   formatTime(time.Now()),
	}
	if i.info.Encrypted {
		if len(i.secretKey) != crypto.KEMSecretKeySize || len(i.serverKey) != crypto.SigPublicKeySize {
			return model.ExportedInbox{}, fmt.Errorf("export inbox %s: its keys are missing", i.info.EmailAddress)
		}
		d.SecretKey = crypto.EncodeBase64URL(i.secretKey)
		d.ServerSigPk = crypto.EncodeBase64URL(i.serverKey)
	}
	return d, nil
}

// formatTime writes t as RFC 3339 (ISO 8601) in UTC with milliseconds,
// like the official SDKs.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// openerFor returns the inbox's opener, building it on first use with the
// context string of the server's info (fetched when not cached yet).
func (i *Inbox) openerFor(ctx context.Context) (*crypto.Opener, error) {
	i.openerMu.Lock()
	defer i.openerMu.Unlock()
	if i.opener != nil {
		return i.opener, nil
	}
	info, err := i.c.ServerInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("inbox %s: the server's encryption context is needed to open mail: %w", i.info.EmailAddress, err)
	}
	return i.setOpenerLocked(info.EncryptionContext())
}

// setOpener builds the opener with a known context string.
func (i *Inbox) setOpener(context string) error {
	i.openerMu.Lock()
	defer i.openerMu.Unlock()
	_, err := i.setOpenerLocked(context)
	return err
}

func (i *Inbox) setOpenerLocked(context string) (*crypto.Opener, error) {
	o, err := crypto.NewOpener(i.secretKey, i.serverKey, context)
	if err != nil {
		return nil, fmt.Errorf("inbox %s: load keys: %w", i.info.EmailAddress, err)
	}
	i.opener = o
	return o, nil
}

// registry holds the loaded inboxes of a client in load order. It is
// guarded by Client.mu.
type registry struct {
	order     []*Inbox
	listeners map[int]func()
	nextID    int
}

// sameInbox reports whether two addresses name the same inbox (lookups on
// the service are case-insensitive).
func sameInbox(a, b string) bool { return strings.EqualFold(a, b) }

// Inbox returns the loaded inbox with the address (case-insensitive).
func (c *Client) Inbox(address string) (*Inbox, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, in := range c.registry.order {
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
	out := make([]*Inbox, len(c.registry.order))
	copy(out, c.registry.order)
	return out
}

// inboxByHash returns the loaded inbox with the inbox hash (used to route
// stream events).
func (c *Client) inboxByHash(hash string) (*Inbox, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, in := range c.registry.order {
		if in.info.InboxHash == hash {
			return in, true
		}
	}
	return nil, false
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
	kept := c.registry.order[:0:0]
	for _, old := range c.registry.order {
		if sameInbox(old.info.EmailAddress, in.info.EmailAddress) || old.info.InboxHash == in.info.InboxHash {
			if !replace {
				c.mu.Unlock()
				return &InboxAlreadyExistsError{Address: old.info.EmailAddress}
			}
			continue
		}
		kept = append(kept, old)
	}
	c.registry.order = append(kept, in)
	listeners := c.listenersLocked()
	c.mu.Unlock()
	notify(listeners)
	return nil
}

// forget drops the loaded inbox with the address, if any.
func (c *Client) forget(address string) {
	c.mu.Lock()
	n := len(c.registry.order)
	c.registry.order = deleteInbox(c.registry.order, address)
	var listeners []func()
	if len(c.registry.order) != n {
		listeners = c.listenersLocked()
	}
	c.mu.Unlock()
	notify(listeners)
}

// forgetAll drops every loaded inbox.
func (c *Client) forgetAll() {
	c.mu.Lock()
	var listeners []func()
	if len(c.registry.order) > 0 {
		listeners = c.listenersLocked()
	}
	c.registry.order = nil
	c.mu.Unlock()
	notify(listeners)
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

func deleteInbox(list []*Inbox, address string) []*Inbox {
	out := list[:0:0]
	for _, in := range list {
		if !sameInbox(in.info.EmailAddress, address) {
			out = append(out, in)
		}
	}
	return out
}

// onRegistryChange calls fn (outside the client's lock) after every change
// of the loaded inboxes, until the returned function is called. The
// delivery code uses it to reconnect the stream with the new hash list.
func (c *Client) onRegistryChange(fn func()) (remove func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.registry.listeners == nil {
		c.registry.listeners = make(map[int]func())
	}
	id := c.registry.nextID
	c.registry.nextID++
	c.registry.listeners[id] = fn
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.registry.listeners, id)
	}
}

func (c *Client) listenersLocked() []func() {
	out := make([]func(), 0, len(c.registry.listeners))
	for _, fn := range c.registry.listeners {
		out = append(out, fn)
	}
	return out
}

func notify(listeners []func()) {
	for _, fn := range listeners {
		fn()
	}
}
