package bolt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"sandview/server/store"
)

// EmailHeads implements store.Store: each email is read whole and its
// content left out (a store of one process has no other's emails to look
// up, so this is rarely called).
func (b *Store) EmailHeads(ctx context.Context, keys []store.EmailKey) ([]*store.Email, error) {
	out := make([]*store.Email, 0, len(keys))
	for _, k := range keys {
		e, err := b.Email(ctx, k)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read email %s: %w", k.ID, err)
		}
		e.Parsed, e.Raw = nil, nil
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *store.Email) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
