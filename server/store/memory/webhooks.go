package memory

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"sandview/server/store"
)

// Webhooks is store.Webhooks in process memory, for a store of one
// server: the memory store's webhooks and delivery queue, and the bolt
// store's copy of those in its file (Journal makes every change durable
// there). Claims are leases of this process only: a store of one server
// has no other replica to hand a delivery to, and a restart lets them
// lapse.
type Webhooks struct {
	// Journal, when set, is told every change, in the order the changes
	// are made, with the table's lock held; the wait it returns is called
	// once the lock is released, and its error is the change's. Nil keeps
	// the changes in memory only.
	Journal func(ctx context.Context, c WebhookChange) (wait func() error)

	mu    sync.Mutex
	hooks map[string]*store.WebhookRow
	// queue holds every queued delivery, due the unclaimed ones in order
	// and claimed the others.
	queue   map[string]*queued
	due     dueQueue
	claimed map[string]*queued
	// seq is the last creation sequence number handed out; version counts
	// the changes of the webhooks (store.Batch.WebhookVersion).
	seq, version uint64
}

// WebhookChange is one change of a Webhooks as its Journal records it:
// webhooks saved (with their stats) or deleted, deliveries queued (new or
// rescheduled) or dropped.
type WebhookChange struct {
	Saved   []store.WebhookRow
	Deleted []string
	Queued  []store.QueuedDelivery
	Dropped []string
}

func (c WebhookChange) empty() bool {
	return len(c.Saved)+len(c.Deleted)+len(c.Queued)+len(c.Dropped) == 0
}

// queued is a delivery in the queue; leased is when its claim lapses
// (zero: not claimed); gen counts its pushes into due.
type queued struct {
	store.QueuedDelivery
	leased time.Time
	gen    uint64
}

// Restore fills an empty table with what a durable store kept (the bolt
// store at open); deliveries of unknown webhooks are left out. New
// sequence numbers continue after the restored ones.
func (w *Webhooks) Restore(rows []store.WebhookRow, ds []store.QueuedDelivery) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.init()
	for _, r := range rows {
		w.hooks[r.ID] = &r
		w.seq = max(w.seq, r.Seq)
	}
	for _, d := range ds {
		if _, ok := w.hooks[d.WebhookID]; ok {
			q := &queued{QueuedDelivery: d}
			w.queue[d.ID] = q
			w.push(q)
			w.seq = max(w.seq, d.Seq)
		}
	}
}

func (w *Webhooks) init() {
	if w.hooks == nil {
		w.hooks = make(map[string]*store.WebhookRow)
		w.queue = make(map[string]*queued)
		w.claimed = make(map[string]*queued)
	}
}

// record passes a change to the journal (w.mu held); the wait it returns
// is called after the lock is released.
func (w *Webhooks) record(ctx context.Context, c WebhookChange) func() error {
	if w.Journal == nil || c.empty() {
		return func() error { return nil }
	}
	return w.Journal(ctx, c)
}

// LoadWebhooks implements store.Webhooks.
func (w *Webhooks) LoadWebhooks(context.Context) ([]store.WebhookRow, uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]store.WebhookRow, 0, len(w.hooks))
	for _, r := range w.hooks {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b store.WebhookRow) int { return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.ID, b.ID)) })
	return out, w.version, nil
}

// SaveWebhook implements store.Webhooks.
func (w *Webhooks) SaveWebhook(ctx context.Context, row store.WebhookRow) (uint64, error) {
	w.mu.Lock()
	w.init()
	r, ok := w.hooks[row.ID]
	if !ok {
		w.seq++
		r = &store.WebhookRow{ID: row.ID, Seq: w.seq}
		w.hooks[row.ID] = r
	}
	if row.Enabled && !r.Enabled {
		r.Stats.ConsecutiveFailures = 0
	}
	r.InboxHash, r.Record, r.Enabled = row.InboxHash, slices.Clone(row.Record), row.Enabled
	w.version++
	seq := r.Seq
	wait := w.record(ctx, WebhookChange{Saved: []store.WebhookRow{*r}})
	w.mu.Unlock()
	return seq, wait()
}

// DeleteWebhook implements store.Webhooks.
func (w *Webhooks) DeleteWebhook(ctx context.Context, id string) error {
	w.mu.Lock()
	wait := w.record(ctx, w.deleteLocked(func(r *store.WebhookRow) bool { return r.ID == id }))
	w.mu.Unlock()
	return wait()
}

// ForgetInbox deletes an inbox's webhooks with their deliveries (its
// store's DeleteInbox).
func (w *Webhooks) ForgetInbox(ctx context.Context, hash string) error {
	w.mu.Lock()
	wait := w.record(ctx, w.deleteLocked(func(r *store.WebhookRow) bool { return r.InboxHash == hash }))
	w.mu.Unlock()
	return wait()
}

// deleteLocked deletes the webhooks gone selects, with their deliveries.
func (w *Webhooks) deleteLocked(gone func(*store.WebhookRow) bool) WebhookChange {
	var c WebhookChange
	for id, r := range w.hooks {
		if gone(r) {
			delete(w.hooks, id)
			c.Deleted = append(c.Deleted, id)
		}
	}
	if len(c.Deleted) == 0 {
		return c
	}
	w.version++
	for id, q := range w.queue {
		if _, ok := w.hooks[q.WebhookID]; !ok {
			w.forget(q)
			c.Dropped = append(c.Dropped, id)
		}
	}
	return c
}

// EnqueueDeliveries implements store.Webhooks.
func (w *Webhooks) EnqueueDeliveries(ctx context.Context, ds []store.QueuedDelivery) error {
	return w.Queue(false, 0, ds, func(ds []store.QueuedDelivery) func() error {
		return w.record(ctx, WebhookChange{Queued: ds})
	})
}

// Queue queues deliveries with a write of the store's (Commit: the
// emails they were rendered for): under the table's lock it refuses them
// with store.ErrStale when check is set and the webhooks are no longer at
// version, numbers them, and calls write with them (write must make them
// durable with its own change); the deliveries join the queue when the
// wait write returns has succeeded.
func (w *Webhooks) Queue(check bool, version uint64, ds []store.QueuedDelivery, write func([]store.QueuedDelivery) (wait func() error)) error {
	w.mu.Lock()
	w.init()
	if check && version != w.version {
		w.mu.Unlock()
		return store.ErrStale
	}
	now := time.Now()
	ds = slices.Clone(ds)
	for i := range ds {
		w.seq++
		ds[i].Seq = w.seq
		if ds[i].Due.IsZero() {
			ds[i].Due = now
		}
	}
	wait := write(ds)
	w.mu.Unlock()
	if err := wait(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, d := range ds {
		q := &queued{QueuedDelivery: d}
		w.queue[d.ID] = q
		w.push(q)
	}
	return nil
}

// forget removes a delivery from the queue (its entry in due goes stale).
func (w *Webhooks) forget(q *queued) {
	delete(w.queue, q.ID)
	delete(w.claimed, q.ID)
}

// ClaimDeliveries implements store.Webhooks: due deliveries, oldest due
// first; those of webhooks deleted meanwhile are dropped.
func (w *Webhooks) ClaimDeliveries(ctx context.Context, limit int, lease time.Duration) ([]store.QueuedDelivery, time.Time, error) {
	w.mu.Lock()
	w.init()
	now := time.Now()
	for _, q := range w.claimed {
		if q.leased.Before(now) { // lapsed
			delete(w.claimed, q.ID)
			w.push(q)
		}
	}
	var claimed []store.QueuedDelivery
	var dropped []string
	var next time.Time
	for q := w.peek(); q != nil; q = w.peek() {
		if len(claimed) >= limit || q.Due.After(now) {
			next = q.Due
			break
		}
		if w.hooks[q.WebhookID] == nil {
			w.forget(q)
			dropped = append(dropped, q.ID)
			continue
		}
		q.leased = now.Add(lease)
		w.claimed[q.ID] = q
		claimed = append(claimed, q.QueuedDelivery)
	}
	wait := w.record(ctx, WebhookChange{Dropped: dropped})
	w.mu.Unlock()
	return claimed, next, wait()
}

// ReleaseDelivery implements store.Webhooks.
func (w *Webhooks) ReleaseDelivery(_ context.Context, id string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if q, ok := w.queue[id]; ok && !q.leased.IsZero() {
		delete(w.claimed, id)
		w.push(q)
	}
	return nil
}

// DropDelivery implements store.Webhooks.
func (w *Webhooks) DropDelivery(ctx context.Context, id string) error {
	w.mu.Lock()
	var c WebhookChange
	if q, ok := w.queue[id]; ok && !q.leased.IsZero() {
		w.forget(q)
		c.Dropped = []string{id}
	}
	wait := w.record(ctx, c)
	w.mu.Unlock()
	return wait()
}

// FinishAttempt implements store.Webhooks. An attempt of a delivery not
// claimed (released or dropped meanwhile) changes nothing.
func (w *Webhooks) FinishAttempt(ctx context.Context, a store.Attempt) (store.WebhookRow, bool, error) {
	w.mu.Lock()
	w.init()
	var c WebhookChange
	q, owned := w.queue[a.Delivery.ID]
	owned = owned && !q.leased.IsZero()
	final := true
	if owned && !a.RetryAt.IsZero() && w.retriesLocked(q) < a.MaxRetries {
		q.Attempt++
		q.Due, final = a.RetryAt, false
		delete(w.claimed, q.ID)
		w.push(q)
		c.Queued = []store.QueuedDelivery{q.QueuedDelivery}
	}
	if owned && final {
		w.forget(q)
		c.Dropped = []string{q.ID}
	}
	r, found := w.hooks[a.Delivery.WebhookID]
	var row store.WebhookRow
	if found {
		if owned {
			count(r, a, final)
			c.Saved = []store.WebhookRow{*r}
		}
		row = *r
	}
	wait := w.record(ctx, c)
	w.mu.Unlock()
	if err := wait(); err != nil {
		return store.WebhookRow{}, false, err
	}
	return row, found, nil
}

// retriesLocked counts the other deliveries of q's webhook waiting for a
// retry.
func (w *Webhooks) retriesLocked(q *queued) int {
	n := 0
	for _, o := range w.queue {
		if o != q && o.WebhookID == q.WebhookID && o.Attempt > 1 {
			n++
		}
	}
	return n
}

// count records an attempt's outcome on a webhook's stats: every attempt
// sets the last delivery; a final one counts, and a failed final one
// counts towards disabling the webhook.
func count(r *store.WebhookRow, a store.Attempt, final bool) {
	s := &r.Stats
	s.LastDeliveryAt, s.LastDeliveryOK = a.At, a.OK
	if !final {
		return
	}
	s.Total++
	if a.OK {
		s.Successful++
		s.ConsecutiveFailures = 0
		return
	}
	s.Failed++
	s.ConsecutiveFailures++
	if s.ConsecutiveFailures >= a.DisableAfter {
		r.Enabled = false
	}
}
