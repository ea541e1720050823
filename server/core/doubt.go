package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"
	"time"

	"sandview/server/store"
)

// Mail in doubt. When a shared store cannot tell whether a commit was made
// (store.ErrInDoubt: PostgreSQL's answer was lost and it stayed out of
// reach), the sender is answered 451, and a sender retries. The arrival is
// remembered by what it carries: the same message (its bytes, Message-ID
// included) for the same recipients arriving again on this replica commits
// the remembered emails again, under their ids, marked store.Batch.Retry,
// which the store makes only when they are absent. So the mail is stored
// once, answered 250, and its events are published here once. Only
// arrivals answered 451 are remembered, and each is taken by one retry:
// two mails both answered 250 are never merged. Whether or not the sender
// retries, the replica looks the arrival up once the store answers again
// (settleDoubts, every sweep) and publishes the events of emails found
// stored, once: the other replicas streamed them when they were committed.
const (
	// maxDoubtBytes bounds the emails remembered; the oldest go first.
	maxDoubtBytes = 64 << 20
	// doubtLifetime is how long an arrival is remembered: senders retry
	// for days, but an outage that long is someone's to look into.
	doubtLifetime = 24 * time.Hour
)

// doubt is one arrival whose commit is in doubt.
type doubt struct {
	key    string
	at     time.Time
	refs   []emailRef
	emails []*store.Email
	events []Event
	size   int64
	// published: its emails were found stored and their events published
	// (its retry stores and publishes nothing).
	published bool
}

// doubts holds the arrivals in doubt, oldest first.
type doubts struct {
	mu    sync.Mutex
	list  []*doubt
	bytes int64
}

// arrivalKey names an arrival by its message's bytes and its recipients.
func arrivalKey(a Arrival) string {
	h := sha256.New()
	h.Write(a.Raw)
	for _, tg := range a.Targets {
		h.Write([]byte{0})
		h.Write([]byte(tg.Inbox.Hash))
		for _, r := range tg.Rcpts {
			h.Write([]byte{1})
			h.Write([]byte(r))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// empty reports whether no arrival is in doubt (then no key is needed).
func (d *doubts) empty() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.list) == 0
}

// add remembers an arrival in doubt.
func (d *doubts) add(x *doubt) {
	for _, e := range x.emails {
		x.size += e.Size()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = append(d.list, x)
	d.bytes += x.size
	d.expireLocked(x.at)
}

// take removes and returns the arrival in doubt with that key, if any.
func (d *doubts) take(key string, now time.Time) *doubt {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expireLocked(now)
	i := slices.IndexFunc(d.list, func(x *doubt) bool { return x.key == key })
	if i < 0 {
		return nil
	}
	x := d.list[i]
	d.list = slices.Delete(d.list, i, i+1)
	d.bytes -= x.size
	return x
}

// expireLocked forgets the arrivals too old or beyond the bound.
func (d *doubts) expireLocked(now time.Time) {
	for len(d.list) > 0 && (d.bytes > maxDoubtBytes || now.Sub(d.list[0].at) > doubtLifetime) {
		d.bytes -= d.list[0].size
		d.list[0] = nil
		d.list = d.list[1:]
	}
}

// unpublished lists the arrivals in doubt not found stored yet.
func (d *doubts) unpublished() []*doubt {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*doubt
	for _, x := range d.list {
		if !x.published {
			out = append(out, x)
		}
	}
	return out
}

// markPublished marks an arrival found stored; false when it was taken by
// its retry meanwhile (which publishes its events then) or published.
func (d *doubts) markPublished(x *doubt) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if x.published || !slices.Contains(d.list, x) {
		return false
	}
	x.published = true
	return true
}

// doubtWork is the core's handling of its arrivals in doubt: their
// retries (retryDoubt, arrival.go) and their settling at each sweep.
type doubtWork struct{ c *Core }

// settleDoubts looks the arrivals in doubt up in the store and publishes
// the events of those found stored.
func (w doubtWork) settleDoubts(ctx context.Context) {
	c := w.c
	for _, d := range c.doubts.unpublished() {
		keys := make([]store.EmailKey, len(d.emails))
		for i, e := range d.emails {
			keys[i] = store.EmailKey{InboxHash: e.InboxHash, ID: e.ID}
		}
		stored, err := c.store.EmailHeads(ctx, keys)
		if err != nil {
			return // still out of reach: the next sweep looks again
		}
		if len(stored) == 0 || !c.doubts.markPublished(d) {
			continue // not made (its retry stores it), or taken by its retry
		}
		found := make(map[store.EmailKey]bool, len(stored))
		for _, e := range stored {
			found[store.EmailKey{InboxHash: e.InboxHash, ID: e.ID}] = true
		}
		var events []Event
		for i, k := range keys {
			if found[k] {
				events = append(events, d.events[2*i], d.events[2*i+1])
			}
		}
		c.log.Info("a mail in doubt was found stored; its events are published", "emails", len(stored))
		c.publish(events...)
	}
}
