package core

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"
)

// idGenerator makes email IDs that sort in arrival order: 16 hex digits of
// the clock in nanoseconds (one more than the last ID's when the clock has
// not moved past it), then 8 random hex digits. Replicas sharing a store
// issue IDs from their own clocks, so theirs interleave in time.
type idGenerator struct {
	seq atomic.Uint64
}

// newIDGenerator starts the sequence at start, or after the largest ID
// already issued (the store's last: see store.EmailStore.LastEmailID).
func newIDGenerator(start uint64, existing []string) *idGenerator {
	g := &idGenerator{}
	g.seq.Store(past(start, existing))
	return g
}

// past is start, or one more than the largest clock of the IDs when that
// is not before it.
func past(start uint64, ids []string) uint64 {
	for _, id := range ids {
		if len(id) < 16 {
			continue
		}
		if n, err := strconv.ParseUint(id[:16], 16, 64); err == nil && n >= start {
			start = n + 1
		}
	}
	return start
}

func (g *idGenerator) next() string {
	var suffix [4]byte
	_, _ = rand.Read(suffix[:]) // crypto/rand.Read never fails
	now := uint64(time.Now().UnixNano())
	for {
		last := g.seq.Load()
		n := max(last+1, now)
		if g.seq.CompareAndSwap(last, n) {
			return fmt.Sprintf("%016x%s", n, hex.EncodeToString(suffix[:]))
		}
	}
}
