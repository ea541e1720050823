package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"sandview/model"
)

// The delivery engine. Every subscription (OnNewEmail, Watch, monitors,
// waits) registers a sink on a watched inbox. One goroutine per client
// (run) keeps mail flowing for all watched inboxes with the strategy of
// Options.Strategy:
//
//   - sse: one event stream for all watched inboxes (sse.go). A change of
//     the watched set reconnects with the new list. After every open, every
//     inbox is synced (listed) to catch mail that arrived while the stream
//     was not open. A failed stream is reopened after SSEReconnectInterval,
//     doubling, SSEMaxReconnectAttempts times; then the engine polls.
//   - auto: the same, but it also polls when the first open does not
//     succeed within SSEConnectionTimeout.
//   - polling: one poller per watched inbox (polling.go), sharing a request
//     budget; a 429 pauses them all for Retry-After.
//
// While polling instead of streaming (sse and auto), the stream is probed
// now and then; when a probe opens, polling stops and the stream takes over.
//
// No email is delivered twice: each watched inbox has a set of seen ids,
// seeded with the ids that exist when the inbox is first watched; an id is
// claimed in that set before its email is fetched and given back if the
// fetch fails for a transient reason (it is then fetched again by a later
// sync). Nothing is lost across reconnects, fallbacks and server restarts,
// because every (re)open and every poll lists the inbox.

// Engine tuning.
const (
	// maxParallelFetches bounds concurrent full-email fetches.
	maxParallelFetches = 8
	// maxParallelLists bounds concurrent inbox listings (seeding, syncs).
	maxParallelLists = 8
	// pollBudgetPerSecond and pollBudgetBurst bound the request rate of all
	// pollers of a client together (the reference deployment allows 500
	// requests a minute per key).
	pollBudgetPerSecond = 8
	pollBudgetBurst     = 8
)

// delivery is the per-client delivery engine; its zero value is made
// ready by Client.dl.
type delivery struct {
	once sync.Once
	c    *Client

	mu             sync.Mutex
	watched        map[string]*watched // by inbox hash
	nextID         int
	running        bool
	state          ConnState
	stateListeners map[int]*dispatcher[ConnState]
	errListeners   map[int]*dispatcher[error]
	followers      map[int]*Monitor

	// changed is signalled (never blocking) when the watched set changes.
	changed    chan struct{}
	fetchSlots chan struct{}
	listSlots  chan struct{}
	budget     *limiter
}

// sink is one subscriber of a watched inbox.
type sink struct {
	deliver func(model.Email) // must not block
	ended   func()            // the inbox was removed from the client; may be nil
	ready   func()            // the watch is seeded: delivery starts; may be nil
}

// watched is an inbox with at least one subscriber.
type watched struct {
	inbox *Inbox
	sinks map[int]sink
	// seen holds the ids that existed when the inbox was first watched and
	// every id claimed since. Events for an inbox are ignored until it is
	// seeded.
	seen   map[string]bool
	seeded bool

	resyncPending bool
	resyncDelay   time.Duration // wait before the next retry of a failed sync
}

// dl returns the client's delivery engine, made ready on first use.
func (c *Client) dl() *delivery {
	d := &c.delivery
	d.once.Do(func() {
		d.c = c
		d.watched = map[string]*watched{}
		d.stateListeners = map[int]*dispatcher[ConnState]{}
		d.errListeners = map[int]*dispatcher[error]{}
		d.followers = map[int]*Monitor{}
		d.changed = make(chan struct{}, 1)
		d.fetchSlots = make(chan struct{}, maxParallelFetches)
		d.listSlots = make(chan struct{}, maxParallelLists)
		d.budget = newLimiter(pollBudgetPerSecond, pollBudgetBurst)
		if c.ctx.Err() != nil {
			d.state = ConnState{Kind: StateClosed}
			return
		}
		c.onRegistryChange(d.registryChanged)
		context.AfterFunc(c.ctx, func() { d.setState(ConnState{Kind: StateClosed}) })
	})
	return d
}

// subscribe adds a sink to the inbox's watch and returns its id. With
// seedNow, the inbox's seen set is seeded (listed with seedCtx) before it
// returns when it is not seeded yet, and a listing error is returned;
// otherwise a new watch is seeded in the background.
func (d *delivery) subscribe(seedCtx context.Context, in *Inbox, s sink, seedNow bool) (int, error) {
	ids, err := d.subscribeAll(seedCtx, []*Inbox{in}, []sink{s}, seedNow)
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// subscribeAll adds sinks[k] to the watch of inboxes[k], all at once (one
// reconnect of the stream), seeding as subscribe does; the listings run in
// parallel.
func (d *delivery) subscribeAll(seedCtx context.Context, inboxes []*Inbox, sinks []sink, seedNow bool) ([]int, error) {
	c := d.c
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	for _, in := range inboxes {
		if cur, ok := c.inboxByHash(in.info.InboxHash); !ok || !sameInbox(cur.info.EmailAddress, in.info.EmailAddress) {
			return nil, fmt.Errorf("watch %s: the inbox is not loaded in this client", in.info.EmailAddress)
		}
	}
	seeds := make([]map[string]bool, len(inboxes))
	if seedNow {
		if err := d.seedAll(seedCtx, inboxes, seeds); err != nil {
			return nil, err
		}
	}
	d.mu.Lock()
	if c.ctx.Err() != nil {
		d.mu.Unlock()
		return nil, ErrClientClosed
	}
	ids := make([]int, len(inboxes))
	var seedLater []*watched
	var ready []func()
	created := false
	for k, in := range inboxes {
		hash := in.info.InboxHash
		w := d.watched[hash]
		if w == nil {
			w = &watched{inbox: in, sinks: map[int]sink{}, seen: map[string]bool{}}
			d.watched[hash] = w
			created = true
			if seeds[k] == nil {
				seedLater = append(seedLater, w)
			}
		}
		if seeds[k] != nil && !w.seeded {
			w.seen, w.seeded = seeds[k], true
		}
		ids[k] = d.nextID
		d.nextID++
		w.sinks[ids[k]] = sinks[k]
		if w.seeded && sinks[k].ready != nil {
			ready = append(ready, sinks[k].ready)
		}
	}
	if !d.running {
		d.running = true
		go d.run()
	}
	d.mu.Unlock()
	if created {
		d.notifyChanged()
	}
	for _, fn := range ready {
		fn()
	}
	for _, w := range seedLater {
		go d.seedInBackground(w)
	}
	return ids, nil
}

// seedAll lists, in parallel, the inboxes whose watch is not seeded yet;
// seeds[k] receives the ids of inboxes[k] (nil when seeded already).
func (d *delivery) seedAll(ctx context.Context, inboxes []*Inbox, seeds []map[string]bool) error {
	errs := make([]error, len(inboxes))
	var wg sync.WaitGroup
	for k, in := range inboxes {
		d.mu.Lock()
		w := d.watched[in.info.InboxHash]
		seeded := w != nil && w.seeded
		d.mu.Unlock()
		if seeded {
			continue
		}
		wg.Go(func() {
			ids, err := d.listIDs(ctx, in)
			if err != nil {
				errs[k] = fmt.Errorf("watch %s: %w", in.info.EmailAddress, err)
				return
			}
			seeds[k] = ids
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// unsubscribe removes a sink; the last one ends the inbox's watch.
func (d *delivery) unsubscribe(hash string, id int) {
	d.unsubscribeAll(map[string]int{hash: id})
}

// unsubscribeAll removes sinks (inbox hash -> sink id) at once, so the
// stream reconnects once.
func (d *delivery) unsubscribeAll(sinks map[string]int) {
	removed := false
	d.mu.Lock()
	for hash, id := range sinks {
		w := d.watched[hash]
		if w == nil {
			continue
		}
		delete(w.sinks, id)
		if len(w.sinks) == 0 {
			delete(d.watched, hash)
			removed = true
		}
	}
	d.mu.Unlock()
	if removed {
		d.notifyChanged()
	}
}

// registryChanged follows the client's loaded inboxes: watches of removed
// inboxes end, following monitors pick up new ones.
func (d *delivery) registryChanged() {
	loaded := d.c.Inboxes()
	hashes := make(map[string]bool, len(loaded))
	for _, in := range loaded {
		hashes[in.info.InboxHash] = true
	}
	var ended []func()
	d.mu.Lock()
	dropped := false
	for hash, w := range d.watched {
		if hashes[hash] {
			continue
		}
		delete(d.watched, hash)
		dropped = true
		for _, s := range w.sinks {
			if s.ended != nil {
				ended = append(ended, s.ended)
			}
		}
	}
	followers := make([]*Monitor, 0, len(d.followers))
	for _, m := range d.followers {
		followers = append(followers, m)
	}
	d.mu.Unlock()
	for _, fn := range ended {
		fn()
	}
	if dropped {
		d.notifyChanged()
	}
	for _, m := range followers {
		if err := m.follow(loaded); err != nil && !errors.Is(err, ErrClientClosed) {
			d.report(err)
		}
	}
}

func (d *delivery) notifyChanged() {
	select {
	case d.changed <- struct{}{}:
	default:
	}
}

// snapshot returns the watched inbox hashes, sorted.
func (d *delivery) snapshot() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hashesLocked()
}

func (d *delivery) hashesLocked() []string {
	hashes := make([]string, 0, len(d.watched))
	for hash := range d.watched {
		hashes = append(hashes, hash)
	}
	slices.Sort(hashes)
	return hashes
}

// watchedList returns the current watches.
func (d *delivery) watchedList() []*watched {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*watched, 0, len(d.watched))
	for _, w := range d.watched {
		out = append(out, w)
	}
	return out
}

// current reports whether w is still the watch of its inbox.
func (d *delivery) current(w *watched) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.watched[w.inbox.info.InboxHash] == w
}

func (d *delivery) isSeeded(w *watched) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return w.seeded
}

// waitWatched returns the watched hashes once there are any (state Idle
// meanwhile); false when the client is closed.
func (d *delivery) waitWatched(ctx context.Context) ([]string, bool) {
	for {
		d.mu.Lock()
		select {
		case <-d.changed:
		default:
		}
		hashes := d.hashesLocked()
		d.mu.Unlock()
		if len(hashes) > 0 {
			return hashes, true
		}
		d.setState(ConnState{Kind: StateIdle})
		select {
		case <-ctx.Done():
			return nil, false
		case <-d.changed:
		}
	}
}

// run is the engine's goroutine; it ends when the client is closed.
func (d *delivery) run() {
	ctx := d.c.ctx
	defer d.setState(ConnState{Kind: StateClosed})
	if d.c.opts.Strategy != StrategyPolling {
		d.runStream(ctx)
		return
	}
	for {
		if _, ok := d.waitWatched(ctx); !ok {
			return
		}
		if _, ok := d.poll(ctx, false); !ok {
			return
		}
	}
}

// report hands a background error to Options.OnSyncError and to the
// OnSyncError listeners.
func (d *delivery) report(err error) {
	if err == nil || d.c.ctx.Err() != nil {
		return
	}
	d.c.reportSyncError(err)
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range d.errListeners {
		l.push(err)
	}
}

// listIDs lists the ids of the inbox's emails (without opening them).
func (d *delivery) listIDs(ctx context.Context, in *Inbox) (map[string]bool, error) {
	list, err := d.listOrdered(ctx, in)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]bool, len(list))
	for _, id := range list {
		ids[id] = true
	}
	return ids, nil
}

// listOrdered lists the ids of the inbox's emails, newest first, within
// the bound on concurrent listings.
func (d *delivery) listOrdered(ctx context.Context, in *Inbox) ([]string, error) {
	d.listSlots <- struct{}{}
	defer func() { <-d.listSlots }()
	return in.emailIDs(ctx)
}

// seedInBackground seeds a watch that was made without seeding, retrying
// with backoff until it works, the watch ends or the client is closed.
func (d *delivery) seedInBackground(w *watched) {
	ctx, o := d.c.ctx, d.c.opts
	delay := o.PollingInterval
	reported := false
	for d.current(w) {
		ids, err := d.listIDs(ctx, w.inbox)
		if err == nil {
			var ready []func()
			d.mu.Lock()
			if !w.seeded {
				w.seen, w.seeded = ids, true
				for _, s := range w.sinks {
					if s.ready != nil {
						ready = append(ready, s.ready)
					}
				}
			}
			d.mu.Unlock()
			for _, fn := range ready {
				fn()
			}
			return
		}
		if ctx.Err() != nil {
			return
		}
		if !reported { // once per streak; it is retried silently after that
			reported = true
			d.report(fmt.Errorf("watch %s: %w", w.inbox.info.EmailAddress, err))
		}
		if d.c.sleep(ctx, delay) != nil {
			return
		}
		delay = min(delay*2, max(o.PollingMaxBackoff, o.PollingInterval))
	}
}

// claim marks id as seen for w; false when it was seen already, w is not
// current or not seeded.
func (d *delivery) claim(w *watched, id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if id == "" || !w.seeded || w.seen[id] || d.watched[w.inbox.info.InboxHash] != w {
		return false
	}
	w.seen[id] = true
	return true
}

// claimByHash claims id in the watch of the inbox hash.
func (d *delivery) claimByHash(hash, id string) *watched {
	d.mu.Lock()
	w := d.watched[hash]
	d.mu.Unlock()
	if w == nil || !d.claim(w, id) {
		return nil
	}
	return w
}

func (d *delivery) unclaim(w *watched, id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(w.seen, id)
}

// fanout hands an email to every sink of w.
func (d *delivery) fanout(w *watched, e model.Email) {
	d.mu.Lock()
	if d.watched[w.inbox.info.InboxHash] != w {
		d.mu.Unlock()
		return
	}
	sinks := make([]sink, 0, len(w.sinks))
	for _, s := range w.sinks {
		sinks = append(sinks, s)
	}
	d.mu.Unlock()
	for _, s := range sinks {
		s.deliver(e)
	}
}

// fetchAndDeliver fetches a claimed email in full and delivers it. An
// email that cannot be opened is delivered with Problem set and the error
// reported. A transient failure gives the claim back and returns the
// error, so that a later sync fetches it again.
func (d *delivery) fetchAndDeliver(ctx context.Context, w *watched, id string, ev *model.StreamEvent) error {
	d.fetchSlots <- struct{}{}
	defer func() { <-d.fetchSlots }()
	in := w.inbox
	var meta model.Email
	if ev != nil {
		m, err := in.OpenStreamEvent(*ev)
		if err != nil {
			return d.deliverFailure(w, id, m, fmt.Errorf("new email %s in %s: %w", id, in.info.EmailAddress, err))
		}
		meta = m
	}
	e, err := in.Email(ctx, id)
	if err == nil {
		d.fanout(w, e)
		return nil
	}
	var notFound *EmailNotFoundError
	if errors.As(err, &notFound) {
		// Deleted before it could be fetched: deliver what the
		// notification said, if anything.
		if meta.ID != "" {
			d.fanout(w, meta)
		}
		d.report(fmt.Errorf("new email %s in %s was deleted before it could be fetched: %w", id, in.info.EmailAddress, err))
		return nil
	}
	return d.deliverFailure(w, id, e, fmt.Errorf("fetch new email %s in %s: %w", id, in.info.EmailAddress, err))
}

// deliverFailure handles an email that could not be fetched or opened: a
// problem email (decryption failed, server key mismatch) is delivered as
// such; anything else gives the claim back.
func (d *delivery) deliverFailure(w *watched, id string, e model.Email, err error) error {
	if ctxErr := d.c.ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	d.report(err)
	if e.Problem != "" && e.ID != "" {
		d.fanout(w, e)
		return nil
	}
	d.unclaim(w, id)
	return err
}

// syncInbox lists a seeded inbox and delivers the emails not seen yet,
// oldest first. It reports its errors and returns whether everything was
// delivered.
func (d *delivery) syncInbox(ctx context.Context, w *watched) bool {
	if !d.isSeeded(w) {
		return true
	}
	ids, err := d.listOrdered(ctx, w.inbox)
	if err != nil {
		if ctx.Err() == nil {
			d.report(fmt.Errorf("sync %s: %w", w.inbox.info.EmailAddress, err))
		}
		return false
	}
	ok := true
	for k := len(ids) - 1; k >= 0; k-- {
		id := ids[k]
		if !d.claim(w, id) {
			continue
		}
		if d.fetchAndDeliver(ctx, w, id, nil) != nil {
			ok = false
		}
	}
	return ok
}

// syncAll syncs every watched inbox, retrying failed ones later.
func (d *delivery) syncAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, w := range d.watchedList() {
		wg.Go(func() {
			if !d.syncInbox(ctx, w) {
				d.resyncLater(ctx, w)
			}
		})
	}
	wg.Wait()
}

// resyncLater syncs w again after a delay that doubles from
// PollingInterval up to PollingMaxBackoff while syncs keep failing.
func (d *delivery) resyncLater(ctx context.Context, w *watched) {
	o := d.c.opts
	d.mu.Lock()
	if w.resyncPending || d.watched[w.inbox.info.InboxHash] != w {
		d.mu.Unlock()
		return
	}
	w.resyncPending = true
	delay := max(w.resyncDelay, o.PollingInterval)
	w.resyncDelay = min(delay*2, max(o.PollingMaxBackoff, o.PollingInterval))
	d.mu.Unlock()
	time.AfterFunc(delay, func() {
		if ctx.Err() != nil {
			return
		}
		d.mu.Lock()
		w.resyncPending = false
		d.mu.Unlock()
		if !d.current(w) {
			return
		}
		if !d.syncInbox(ctx, w) {
			d.resyncLater(ctx, w)
			return
		}
		d.mu.Lock()
		w.resyncDelay = 0
		d.mu.Unlock()
	})
}
