package core

import (
	"errors"
	"sync"
	"time"

	"sandview/crypto"
	"sandview/server/store"
)

// Errors of registry.add.
var (
	errAddressTaken = errors.New("address already used by an inbox")
	errKeyTaken     = errors.New("client key already used by an inbox")
)

// Inbox is a live inbox: one the server currently serves, as stored, with
// what serving it takes.
type Inbox struct {
	store.Inbox
	sealer *crypto.Sealer // encrypted inboxes only
}

func (in *Inbox) ref() InboxRef {
	return InboxRef{Address: in.Address, Hash: in.Hash, Encrypted: in.Encrypted}
}

// Sealer encrypts to the inbox's key and renders its payloads (nil for a
// plain inbox).
func (in *Inbox) Sealer() *crypto.Sealer { return in.sealer }

// registry is the cache of the live inboxes the store holds: filled at
// start and on a miss (lookup), emptied as inboxes are deleted or expire,
// here or on another replica (notices.go). The store holds the emails and
// enforces the storage limits (see sweep.go). Its mutex is never held
// across store calls.
type registry struct {
	mu        sync.Mutex
	byAddress map[string]*Inbox
	byHash    map[string]*Inbox
	// lookup, when set, finds an inbox the registry does not hold (another
	// replica created it) and registers it; it is called without mu.
	lookup func(address string) (*Inbox, bool)
}

func newRegistry() *registry {
	return &registry{
		byAddress: make(map[string]*Inbox),
		byHash:    make(map[string]*Inbox),
	}
}

// add registers an inbox unless its address or hash is taken by a live one.
func (r *registry) add(in *Inbox) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byAddress[in.Address]; ok {
		return errAddressTaken
	}
	if _, ok := r.byHash[in.Hash]; ok {
		return errKeyTaken
	}
	r.byAddress[in.Address] = in
	r.byHash[in.Hash] = in
	return nil
}

// byAddr returns the live, unexpired inbox with that (lowercased) address.
func (r *registry) byAddr(address string, now time.Time) (*Inbox, bool) {
	r.mu.Lock()
	in, ok := r.byAddress[address]
	r.mu.Unlock()
	if !ok && r.lookup != nil {
		in, ok = r.lookup(address)
	}
	if !ok || !now.Before(in.ExpiresAt) {
		return nil, false
	}
	return in, true
}

// renew sets a registered inbox's expiry to now+ttl once less than half of
// ttl is left, and returns the inbox as it is then to be stored; ok is
// false when nothing changed (time left, or the inbox is gone).
func (r *registry) renew(in *Inbox, now time.Time, ttl time.Duration) (renewed store.Inbox, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byHash[in.Hash] != in || in.ExpiresAt.Sub(now) >= ttl/2 {
		return store.Inbox{}, false
	}
	in.ExpiresAt = now.Add(ttl)
	return in.Inbox, true
}

// get returns the registered inbox with that hash.
func (r *registry) get(hash string) (*Inbox, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	in, ok := r.byHash[hash]
	return in, ok
}

// holds reports whether in is the registered inbox of its hash (it was
// not removed meanwhile).
func (r *registry) holds(in *Inbox) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byHash[in.Hash] == in
}

// remove unregisters an inbox; it reports whether it was registered.
func (r *registry) remove(hash string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	in, ok := r.byHash[hash]
	if ok {
		delete(r.byAddress, in.Address)
		delete(r.byHash, in.Hash)
	}
	return ok
}

// inboxes lists the live inboxes.
func (r *registry) inboxes() []*Inbox {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Inbox, 0, len(r.byHash))
	for _, in := range r.byHash {
		out = append(out, in)
	}
	return out
}
