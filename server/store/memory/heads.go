package memory

import (
	"context"
	"errors"
	"slices"
	"strings"

	"sandview/server/store"
)

// EmailHeads implements store.Store.
func (m *Store) EmailHeads(_ context.Context, keys []store.EmailKey) ([]*store.Email, error) {
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return nil, store.ErrClosed
	}
	found := make([]*memEmail, 0, len(keys))
	for _, k := range keys {
		e, err := m.emailLocked(k)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			m.mu.RUnlock()
			return nil, err
		}
		found = append(found, e)
	}
	m.mu.RUnlock()
	out := make([]*store.Email, len(found))
	for i, e := range found {
		head, err := m.unpack(e, false)
		if err != nil {
			return nil, err
		}
		out[i] = head
	}
	slices.SortFunc(out, func(a, b *store.Email) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
