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
	// ready, when not nil, is closed once seq is past the IDs already
	// stored (see heldIDGenerator); next waits for it.
	ready chan struct{}
}

// newIDGenerator starts the sequence at start, or after the largest ID
// already issued.
func newIDGenerator(start uint64, existing []string) *idGenerator {
	g := &idGenerator{}
	g.seq.Store(past(start, existing))
	return g
}

// heldIDGenerator starts the sequence at start and holds it until release
// is called with the IDs already stored, which moves it past them.
func heldIDGenerator(start uint64) (g *idGenerator, release func(existing []string)) {
	g = &idGenerator{ready: make(chan struct{})}
	g.seq.Store(start)
	return g, func(existing []string) {
		g.seq.Store(past(start, existing))
		close(g.ready)
	}
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
	if g.ready != nil {
		<-g.ready
	}
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
