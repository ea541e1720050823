package core

import (
	"errors"
	"slices"
	"strings"
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
	emails emailList      // oldest first
}

func (in *Inbox) ref() InboxRef {
	return InboxRef{Address: in.Address, Hash: in.Hash, Encrypted: in.Encrypted}
}

// Sealer encrypts to the inbox's key and renders its payloads (nil for a
// plain inbox).
func (in *Inbox) Sealer() *crypto.Sealer { return in.sealer }

// liveEmail is the accounting entry of one stored email.
type liveEmail struct {
	id    string
	inbox *Inbox
	size  int64
	all   links // in the registry's list of every email
	own   links // in its inbox's list
}

// registry holds the live inboxes and accounts stored emails for the
// storage limits. The store holds the content; the registry decides what to
// evict. Its mutex is never held across store calls.
type registry struct {
	mu        sync.Mutex
	byAddress map[string]*Inbox
	byHash    map[string]*Inbox
	emails    map[string]*liveEmail
	all       emailList // every email, oldest first
	total     int64

	maxPerInbox int
	maxBytes    int64
	// loaded is closed once the emails stored before the start are
	// accounted (see loading); until then the methods that account or
	// evict emails wait for it.
	loaded chan struct{}
	// lookup, when set, finds an inbox the registry does not hold (another
	// replica created it) and registers it; it is called without mu.
	lookup func(address string) (*Inbox, bool)
}

func newRegistry(maxPerInbox int, maxBytes int64) *registry {
	loaded := make(chan struct{})
	close(loaded)
	return &registry{
		byAddress:   make(map[string]*Inbox),
		byHash:      make(map[string]*Inbox),
		emails:      make(map[string]*liveEmail),
		maxPerInbox: maxPerInbox,
		maxBytes:    maxBytes,
		loaded:      loaded,
	}
}

// loading makes the methods that account or evict emails wait until
// finish is called with the emails stored before the start (any order),
// which accounts them, oldest first, ahead of any email since. It is
// called while the core opens, before the registry is shared.
func (r *registry) loading() (finish func(stored []*liveEmail)) {
	r.loaded = make(chan struct{})
	return func(stored []*liveEmail) {
		sortByID(stored)
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, e := range stored {
			r.trackLocked(e)
		}
		close(r.loaded)
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
	in.emails = emailList{own: true}
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

// remove unregisters an inbox and returns the IDs of its emails; ok is false
// when it was not registered.
func (r *registry) remove(hash string) (ids []string, ok bool) {
	<-r.loaded
	r.mu.Lock()
	defer r.mu.Unlock()
	in, ok := r.byHash[hash]
	if !ok {
		return nil, false
	}
	return r.removeLocked(in), true
}

func (r *registry) removeLocked(in *Inbox) []string {
	delete(r.byAddress, in.Address)
	delete(r.byHash, in.Hash)
	ids := make([]string, 0, in.emails.len())
	for in.emails.front != nil {
		e := in.emails.front
		ids = append(ids, e.id)
		r.forgetLocked(e)
	}
	return ids
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

// expired unregisters every inbox whose expiry has passed and returns them
// with their email IDs.
func (r *registry) expired(now time.Time) map[*Inbox][]string {
	<-r.loaded
	r.mu.Lock()
	defer r.mu.Unlock()
	var out map[*Inbox][]string
	for _, in := range r.byHash {
		if now.Before(in.ExpiresAt) {
			continue
		}
		if out == nil {
			out = make(map[*Inbox][]string)
		}
		out[in] = r.removeLocked(in)
	}
	return out
}

// victim is an email chosen for eviction.
type victim struct {
	inbox *Inbox
	id    string
}

// reserve accounts new emails (one per inbox) before they are committed and
// picks the oldest emails to evict so that the limits hold: first per
// inbox, then in total. Inboxes no longer registered are skipped and
// returned as gone. Victims are forgotten at once so that concurrent
// reservations never pick them twice.
func (r *registry) reserve(entries []*liveEmail) (victims []victim, gone map[string]bool) {
	<-r.loaded
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range entries {
		if current, ok := r.byHash[e.inbox.Hash]; !ok || current != e.inbox {
			if gone == nil {
				gone = make(map[string]bool)
			}
			gone[e.id] = true
			continue
		}
		for r.maxPerInbox > 0 && e.inbox.emails.len() >= r.maxPerInbox {
			old := e.inbox.emails.front
			victims = append(victims, victim{inbox: old.inbox, id: old.id})
			r.forgetLocked(old)
		}
		for r.maxBytes > 0 && r.total+e.size > r.maxBytes && r.all.len() > 0 {
			old := r.all.front
			victims = append(victims, victim{inbox: old.inbox, id: old.id})
			r.forgetLocked(old)
		}
		r.trackLocked(e)
	}
	return victims, gone
}

func (r *registry) trackLocked(e *liveEmail) {
	r.all.pushBack(e)
	e.inbox.emails.pushBack(e)
	r.emails[e.id] = e
	r.total += e.size
}

// forget drops the accounting of one email; it reports whether it was
// accounted.
func (r *registry) forget(id string) bool {
	<-r.loaded
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.emails[id]
	if ok {
		r.forgetLocked(e)
	}
	return ok
}

func (r *registry) forgetLocked(e *liveEmail) {
	if _, ok := r.emails[e.id]; !ok {
		return
	}
	r.all.remove(e)
	e.inbox.emails.remove(e)
	delete(r.emails, e.id)
	r.total -= e.size
}

// sortByID orders emails loaded at startup so the oldest come first.
func sortByID(entries []*liveEmail) {
	slices.SortFunc(entries, func(a, b *liveEmail) int { return strings.Compare(a.id, b.id) })
}
