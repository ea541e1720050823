package memory

import (
	"context"
	"slices"
	"sync"
	"time"

	"sandview/server/store"
)

// Chaos is store.ChaosStore in process memory, for a store of one server
// (this one and bolt's, which keeps chaos in memory too, as the reference
// does: lost on restart). Exists tells whether an inbox is held.
type Chaos struct {
	Exists func(ctx context.Context, hash string) (bool, error)

	mu       sync.Mutex
	configs  map[string][]byte
	greylist map[string]*greyEntry
}

type greyEntry struct {
	first    time.Time
	attempts int
}

// ChaosConfig implements store.ChaosStore.
func (c *Chaos) ChaosConfig(_ context.Context, hash string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.configs[hash]), nil
}

// PutChaosConfig implements store.ChaosStore.
func (c *Chaos) PutChaosConfig(ctx context.Context, hash string, data []byte) error {
	ok, err := c.Exists(ctx, hash)
	if err != nil {
		return err
	}
	if !ok {
		return store.ErrNotFound
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.configs == nil {
		c.configs = make(map[string][]byte)
	}
	c.configs[hash] = slices.Clone(data)
	return nil
}

// ForgetInbox drops an inbox's config (its DeleteInbox).
func (c *Chaos) ForgetInbox(hash string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.configs, hash)
}

// GreylistAttempt implements store.ChaosStore.
func (c *Chaos) GreylistAttempt(_ context.Context, key string, now time.Time, window time.Duration, maxAttempts int) (int, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.greylist == nil {
		c.greylist = make(map[string]*greyEntry)
	}
	e := c.greylist[key]
	if e != nil && e.attempts > 0 && now.Sub(e.first) > window {
		e = nil
	}
	if e == nil {
		if len(c.greylist) >= store.MaxGreylistEntries {
			c.forgetOldest()
		}
		e = &greyEntry{first: now}
		c.greylist[key] = e
	}
	e.attempts++
	if e.attempts >= maxAttempts {
		delete(c.greylist, key)
		return e.attempts, true, nil
	}
	return e.attempts, false, nil
}

// forgetOldest drops the entry seen first.
func (c *Chaos) forgetOldest() {
	oldest := ""
	var first time.Time
	for k, e := range c.greylist {
		if oldest == "" || e.first.Before(first) {
			oldest, first = k, e.first
		}
	}
	delete(c.greylist, oldest)
}

// SweepGreylist implements store.ChaosStore.
func (c *Chaos) SweepGreylist(_ context.Context, before time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.greylist {
		if e.first.Before(before) {
			delete(c.greylist, k)
		}
	}
	return nil
}
