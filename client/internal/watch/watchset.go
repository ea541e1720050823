package watch

import (
	"slices"
	"sync"

	"sandview/model"
)

// watchSet is the set of watched inboxes with their subscribers and seen
// ids: claiming an id before its email is fetched, and fan-out of an
// email to every subscriber of its inbox.
type watchSet struct {
	mu      sync.Mutex
	watched map[string]*watched // by inbox hash
	nextID  int
	// changed is signalled (never blocking) when the set changes.
	changed chan struct{}
}

func (s *watchSet) notifyChanged() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// snapshot returns the watched inbox hashes, sorted.
func (s *watchSet) snapshot() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hashesLocked()
}

func (s *watchSet) hashesLocked() []string {
	hashes := make([]string, 0, len(s.watched))
	for hash := range s.watched {
		hashes = append(hashes, hash)
	}
	slices.Sort(hashes)
	return hashes
}

// watchedList returns the current watches.
func (s *watchSet) watchedList() []*watched {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*watched, 0, len(s.watched))
	for _, w := range s.watched {
		out = append(out, w)
	}
	return out
}

// current reports whether w is still the watch of its inbox.
func (s *watchSet) current(w *watched) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watched[w.inbox.Hash()] == w
}

func (s *watchSet) isSeeded(w *watched) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return w.seeded
}

// claim marks id as seen for w; false when it was seen already, w is not
// current or not seeded.
func (s *watchSet) claim(w *watched, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" || !w.seeded || w.seen[id] || s.watched[w.inbox.Hash()] != w {
		return false
	}
	w.seen[id] = true
	return true
}

// claimByHash claims id in the watch of the inbox hash.
func (s *watchSet) claimByHash(hash, id string) *watched {
	s.mu.Lock()
	w := s.watched[hash]
	s.mu.Unlock()
	if w == nil || !s.claim(w, id) {
		return nil
	}
	return w
}

func (s *watchSet) unclaim(w *watched, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(w.seen, id)
}

// metadataOnly reports whether every subscriber of w takes new mail
// with its metadata only (Callbacks.MetadataOnly).
func (s *watchSet) metadataOnly(w *watched) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range w.subs {
		if !sub.MetadataOnly {
			return false
		}
	}
	return len(w.subs) > 0
}

// unseenIfMetadataOnly returns, when every subscriber of w takes new mail
// with its metadata only, whether an id is not seen yet: the records a
// sync's listing opens the metadata of. Nil otherwise (nothing opened).
func (s *watchSet) unseenIfMetadataOnly(w *watched) func(id string) bool {
	if !s.metadataOnly(w) {
		return nil
	}
	return func(id string) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return !w.seen[id]
	}
}

// fanout hands an email to every subscriber of w.
func (s *watchSet) fanout(w *watched, email model.Email) {
	s.mu.Lock()
	if s.watched[w.inbox.Hash()] != w {
		s.mu.Unlock()
		return
	}
	subs := make([]Callbacks, 0, len(w.subs))
	for _, sub := range w.subs {
		subs = append(subs, sub)
	}
	s.mu.Unlock()
	for _, sub := range subs {
		sub.Deliver(email)
	}
}
