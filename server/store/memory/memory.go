package memory

import (
	"context"
	"fmt"
	"sandview/server/store"
	"slices"
	"sort"
	"sync"
	"time"
)

// Store is a store.Store that keeps everything in process memory. It keeps the
// parsed and raw payloads of a plain email deflated (text and JSON take a
// third or less of their size so); encrypted payloads, which do not
// shrink, are kept as they are. Reads get them back inflated.
type Store struct {
	mu      sync.RWMutex
	closed  bool
	inboxes map[string]*memInbox
	// addresses names each inbox's hash by its address.
	addresses map[string]string
	// writers and readers are reused deflaters and inflaters.
	writers, readers sync.Pool
	// Solo: the store lives in one process, which leads; cluster is its
	// work as the leader (cluster.go).
	store.Solo
	cluster
	// Chaos keeps the chaos configs and the greylisting state.
	Chaos
	// Webhooks keeps the webhooks and their delivery queue.
	Webhooks
}

type memInbox struct {
	inbox  store.Inbox
	emails map[string]*memEmail
	ids    []string // ascending
	// bytes and unsigned are the inbox's counters (see account).
	bytes    int64
	unsigned map[string]time.Time // id: when stored, for emails with Unsigned parts
}

// memEmail is a stored email: the Email with the payloads named by
// deflated in their deflated form, and its Size before that.
type memEmail struct {
	store.Email
	deflated store.Parts
	size     int64
}

var _ store.Store = (*Store)(nil)

// New returns an empty in-memory store.
func New() *Store {
	m := &Store{inboxes: make(map[string]*memInbox), addresses: make(map[string]string)}
	m.cluster = cluster{m}
	m.Exists = m.holds
	return m
}

// PutInbox implements store.Store.
func (m *Store) PutInbox(_ context.Context, inbox store.Inbox) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return store.ErrClosed
	}
	m.addresses[inbox.Address] = inbox.Hash
	if existing, ok := m.inboxes[inbox.Hash]; ok {
		if existing.inbox.Address != inbox.Address && m.addresses[existing.inbox.Address] == inbox.Hash {
			delete(m.addresses, existing.inbox.Address)
		}
		existing.inbox = inbox
		return nil
	}
	m.inboxes[inbox.Hash] = &memInbox{inbox: inbox, emails: make(map[string]*memEmail)}
	return nil
}

// DeleteInbox implements store.Store: the inbox goes with its emails,
// chaos config and webhooks.
func (m *Store) DeleteInbox(ctx context.Context, hash string) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return store.ErrClosed
	}
	m.forgetLocked(hash)
	m.mu.Unlock()
	return m.Webhooks.ForgetInbox(ctx, hash)
}

// holds reports whether the store holds the inbox hash.
func (m *Store) holds(_ context.Context, hash string) (bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return false, store.ErrClosed
	}
	_, ok := m.inboxes[hash]
	return ok, nil
}

// Inboxes implements store.Store.
func (m *Store) Inboxes(context.Context) ([]store.Inbox, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, store.ErrClosed
	}
	out := make([]store.Inbox, 0, len(m.inboxes))
	for _, in := range m.inboxes {
		out = append(out, in.inbox)
	}
	return out, nil
}

// Inbox implements store.Store.
func (m *Store) Inbox(_ context.Context, hash string) (store.Inbox, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return store.Inbox{}, store.ErrClosed
	}
	in, ok := m.inboxes[hash]
	if !ok {
		return store.Inbox{}, store.ErrNotFound
	}
	return in.inbox, nil
}

// InboxByAddress implements store.Store.
func (m *Store) InboxByAddress(_ context.Context, address string) (store.Inbox, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return store.Inbox{}, store.ErrClosed
	}
	if in, ok := m.inboxes[m.addresses[address]]; ok {
		return in.inbox, nil
	}
	return store.Inbox{}, store.ErrNotFound
}

// Commit implements store.Store: the emails, then their deliveries join
// the queue.
func (m *Store) Commit(_ context.Context, b store.Batch) error {
	packed := make([]*memEmail, len(b.Put))
	for i, e := range b.Put {
		packed[i] = m.pack(e, true)
	}
	if len(b.Deliveries) == 0 && !b.CheckWebhooks {
		return m.commit(b, packed)
	}
	return m.Queue(b.CheckWebhooks, b.WebhookVersion, b.Deliveries, func([]store.QueuedDelivery) func() error {
		err := m.commit(b, packed)
		return func() error { return err }
	})
}

// commit puts and deletes a batch's emails.
func (m *Store) commit(b store.Batch, packed []*memEmail) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return store.ErrClosed
	}
	for _, e := range b.Put {
		if _, ok := m.inboxes[e.InboxHash]; !ok {
			return fmt.Errorf("put email %s: inbox %s: %w", e.ID, e.InboxHash, store.ErrNotFound)
		}
	}
	for _, k := range b.Delete {
		m.deleteLocked(k)
	}
	for _, e := range packed {
		in := m.inboxes[e.InboxHash]
		old, exists := in.emails[e.ID]
		if !exists {
			i := sort.SearchStrings(in.ids, e.ID)
			in.ids = slices.Insert(in.ids, i, e.ID)
		}
		in.emails[e.ID] = e
		in.account(e.ID, old, e)
	}
	return nil
}

func (m *Store) deleteLocked(k store.EmailKey) bool {
	in, ok := m.inboxes[k.InboxHash]
	if !ok {
		return false
	}
	old, ok := in.emails[k.ID]
	if !ok {
		return false
	}
	delete(in.emails, k.ID)
	in.account(k.ID, old, nil)
	if i, found := slices.BinarySearch(in.ids, k.ID); found {
		in.ids = slices.Delete(in.ids, i, i+1)
	}
	return true
}

// DeleteEmail implements store.Store.
func (m *Store) DeleteEmail(_ context.Context, k store.EmailKey) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return store.ErrClosed
	}
	if !m.deleteLocked(k) {
		return fmt.Errorf("delete email %s: %w", k.ID, store.ErrNotFound)
	}
	return nil
}

// MarkRead implements store.Store.
func (m *Store) MarkRead(_ context.Context, k store.EmailKey) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return store.ErrClosed
	}
	e, err := m.emailLocked(k)
	if err != nil {
		return err
	}
	updated := *e // replaced, not changed in place: reads are unlocked
	updated.IsRead = true
	m.inboxes[k.InboxHash].emails[k.ID] = &updated
	return nil
}

// SetSigned implements store.Store. Stored emails are replaced, not changed in
// place: copies handed out earlier keep their Unsigned parts. A change
// whose payloads are the stored ones, signed where they lie (see store.Signed),
// keeps them as they are.
func (m *Store) SetSigned(_ context.Context, changes []store.Signed) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return store.ErrClosed
	}
	for _, c := range changes {
		e, err := m.emailLocked(c.Key)
		if err != nil {
			continue
		}
		in := m.inboxes[c.Key.InboxHash]
		var updated *memEmail
		if c.WhereStored(&e.Email) {
			copied := *e
			copied.Unsigned &^= c.Parts
			updated = &copied
		} else {
			full, err := m.unpack(e, true) // sealed payloads: a copy of e
			if err != nil {
				return err
			}
			c.Apply(full)
			updated = m.pack(full, false)
		}
		in.emails[c.Key.ID] = updated
		in.account(c.Key.ID, e, updated)
	}
	return nil
}

func (m *Store) emailLocked(k store.EmailKey) (*memEmail, error) {
	in, ok := m.inboxes[k.InboxHash]
	if !ok {
		return nil, fmt.Errorf("inbox %s: %w", k.InboxHash, store.ErrNotFound)
	}
	e, ok := in.emails[k.ID]
	if !ok {
		return nil, fmt.Errorf("email %s: %w", k.ID, store.ErrNotFound)
	}
	return e, nil
}

// Email implements store.Store.
func (m *Store) Email(_ context.Context, k store.EmailKey) (*store.Email, error) {
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return nil, store.ErrClosed
	}
	e, err := m.emailLocked(k)
	m.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	// A stored email is never changed in place: it is read unlocked.
	return m.unpack(e, true)
}

// Emails implements store.Store.
func (m *Store) Emails(_ context.Context, hash string, withContent bool, page store.Page) ([]*store.Email, error) {
	stored, err := m.page(hash, page)
	if err != nil {
		return nil, err
	}
	out := make([]*store.Email, len(stored))
	for i, e := range stored {
		if out[i], err = m.unpack(e, withContent); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// page is a page of an inbox's stored emails, newest first.
func (m *Store) page(hash string, page store.Page) ([]*memEmail, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, store.ErrClosed
	}
	in, ok := m.inboxes[hash]
	if !ok {
		return nil, fmt.Errorf("inbox %s: %w", hash, store.ErrNotFound)
	}
	end := len(in.ids)
	if page.Before != "" {
		end = sort.SearchStrings(in.ids, page.Before)
	}
	n := end
	if page.Limit > 0 {
		n = min(n, page.Limit)
	}
	out := make([]*memEmail, 0, n)
	for i := end - 1; i >= end-n; i-- {
		out = append(out, in.emails[in.ids[i]])
	}
	return out, nil
}

// IDs implements store.Store.
func (m *Store) IDs(_ context.Context, hash string) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, store.ErrClosed
	}
	in, ok := m.inboxes[hash]
	if !ok {
		return nil, fmt.Errorf("inbox %s: %w", hash, store.ErrNotFound)
	}
	return slices.Clone(in.ids), nil
}

// Ping implements store.Store.
func (m *Store) Ping(context.Context) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return store.ErrClosed
	}
	return nil
}

// Close implements store.Store.
func (m *Store) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.inboxes, m.addresses = nil, nil
	return nil
}
