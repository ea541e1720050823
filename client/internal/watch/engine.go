package watch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"sandview/client/internal/async"
)

// Engine tuning.
const (
	// maxParallelFetches bounds concurrent full-email fetches.
	maxParallelFetches = 8
	// maxPendingNotifications bounds the notifications of the stream
	// waiting for their fetch; beyond it the stream is not read further
	// until one is delivered, so that a subscriber that holds delivery
	// back (back-pressure) holds back the stream rather than piling up
	// goroutines.
	maxPendingNotifications = 64
	// maxParallelLists bounds concurrent inbox listings (seeding, syncs).
	maxParallelLists = 8
	// defaultPollBudget bounds the request rate of all pollers of an
	// engine together, in requests a second and as a burst (the reference
	// deployment allows 500 requests a minute per key).
	defaultPollBudget = 8
)

// Engine delivers the new mail of watched inboxes to their subscribers.
type Engine struct {
	ctx    context.Context // the client's lifetime
	client Client
	cfg    Config

	states *states
	// watchSet holds the watched inboxes and their subscribers
	// (watchset.go); its mutex guards running too.
	*watchSet
	running bool

	// kick is signalled when Reconnect is called.
	kick       chan struct{}
	fetchSlots chan struct{}
	pending    chan struct{} // notifications waiting for their fetch
	listSlots  chan struct{}
	streamer   *streamer // the stream and auto modes (stream.go)
	poller     *poller   // polling (polling.go)
}

// watched is an inbox with at least one subscriber.
type watched struct {
	inbox Inbox
	subs  map[int]Callbacks
	// seen holds the ids that existed when the inbox was first watched and
	// every id claimed since. Events for an inbox are ignored until it is
	// seeded.
	seen   map[string]bool
	seeded bool

	resyncPending bool
	resyncDelay   time.Duration // wait before the next retry of a failed sync
}

// New returns an engine that works until ctx ends (the client is closed);
// its goroutine starts with the first subscription.
func New(ctx context.Context, client Client, cfg Config) *Engine {
	e := &Engine{
		ctx:        ctx,
		client:     client,
		cfg:        cfg,
		watchSet:   &watchSet{watched: map[string]*watched{}, changed: make(chan struct{}, 1)},
		states:     &states{ctx: ctx, listeners: map[int]*async.Queue[State]{}},
		kick:       make(chan struct{}, 1),
		fetchSlots: make(chan struct{}, maxParallelFetches),
		pending:    make(chan struct{}, maxPendingNotifications),
		listSlots:  make(chan struct{}, maxParallelLists),
	}
	budget := cfg.PollBudget
	if budget <= 0 {
		budget = defaultPollBudget
	}
	e.poller = &poller{Engine: e, budget: newLimiter(budget, budget)}
	e.streamer = &streamer{e}
	context.AfterFunc(ctx, func() { e.states.set(State{Kind: StateClosed}) })
	return e
}

// Subscribe adds each watch's subscriber to the watch of its inbox, all at once
// (one reconnect of the stream), and returns the subscriber ids in order. With
// seedNow, the inboxes not seeded yet are listed (in parallel, with
// seedCtx) before it returns, and a listing error is returned; otherwise
// new watches are seeded in the background. After the client is closed it
// returns the cause of the engine's context.
func (e *Engine) Subscribe(seedCtx context.Context, watches []Watch, seedNow bool) ([]int, error) {
	if e.ctx.Err() != nil {
		return nil, context.Cause(e.ctx)
	}
	seeds := make([]map[string]bool, len(watches))
	if seedNow {
		if err := e.seedAll(seedCtx, watches, seeds); err != nil {
			return nil, err
		}
	}
	e.mu.Lock()
	if e.ctx.Err() != nil {
		e.mu.Unlock()
		return nil, context.Cause(e.ctx)
	}
	ids := make([]int, len(watches))
	var seedLater []*watched
	var ready []func()
	created := false
	for k, wt := range watches {
		hash := wt.Inbox.Hash()
		w := e.watched[hash]
		if w == nil {
			w = &watched{inbox: wt.Inbox, subs: map[int]Callbacks{}, seen: map[string]bool{}}
			e.watched[hash] = w
			created = true
			if seeds[k] == nil {
				seedLater = append(seedLater, w)
			}
		}
		if seeds[k] != nil && !w.seeded {
			w.seen, w.seeded = seeds[k], true
		}
		ids[k] = e.nextID
		e.nextID++
		w.subs[ids[k]] = wt.Callbacks
		if w.seeded && wt.Callbacks.Ready != nil {
			ready = append(ready, wt.Callbacks.Ready)
		}
	}
	if !e.running {
		e.running = true
		go e.run()
	}
	e.mu.Unlock()
	if created {
		e.notifyChanged()
	}
	for _, fn := range ready {
		fn()
	}
	for _, w := range seedLater {
		go e.seedInBackground(w)
	}
	return ids, nil
}

// seedAll lists, in parallel, the inboxes whose watch is not seeded yet;
// seeds[k] receives the ids of watches[k]'s inbox (nil when seeded
// already).
func (e *Engine) seedAll(ctx context.Context, watches []Watch, seeds []map[string]bool) error {
	errs := make([]error, len(watches))
	var wg sync.WaitGroup
	for k, wt := range watches {
		e.mu.Lock()
		w := e.watched[wt.Inbox.Hash()]
		seeded := w != nil && w.seeded
		e.mu.Unlock()
		if seeded {
			continue
		}
		wg.Go(func() {
			ids, err := e.listIDs(ctx, wt.Inbox)
			if err != nil {
				errs[k] = fmt.Errorf("watch %s: %w", wt.Inbox.Address(), err)
				return
			}
			seeds[k] = ids
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Unsubscribe removes subscribers (inbox hash -> subscriber id) at once, so the stream
// reconnects once; the last subscriber of an inbox ends its watch.
func (e *Engine) Unsubscribe(subs map[string]int) {
	removed := false
	e.mu.Lock()
	for hash, id := range subs {
		w := e.watched[hash]
		if w == nil {
			continue
		}
		delete(w.subs, id)
		if len(w.subs) == 0 {
			delete(e.watched, hash)
			removed = true
		}
	}
	e.mu.Unlock()
	if removed {
		e.notifyChanged()
	}
}

// InboxesChanged ends the watches of inboxes that are no longer loaded
// (loaded holds the hashes of those that are); their subscribers' Ended runs.
func (e *Engine) InboxesChanged(loaded map[string]bool) {
	var ended []func()
	dropped := false
	e.mu.Lock()
	for hash, w := range e.watched {
		if loaded[hash] {
			continue
		}
		delete(e.watched, hash)
		dropped = true
		for _, s := range w.subs {
			if s.Ended != nil {
				ended = append(ended, s.Ended)
			}
		}
	}
	e.mu.Unlock()
	for _, fn := range ended {
		fn()
	}
	if dropped {
		e.notifyChanged()
	}
}

// waitWatched returns the watched hashes once there are any (state Idle
// meanwhile); false when the client is closed.
func (e *Engine) waitWatched(ctx context.Context) ([]string, bool) {
	for {
		e.mu.Lock()
		select {
		case <-e.changed:
		default:
		}
		hashes := e.hashesLocked()
		e.mu.Unlock()
		if len(hashes) > 0 {
			return hashes, true
		}
		e.states.set(State{Kind: StateIdle})
		select {
		case <-ctx.Done():
			return nil, false
		case <-e.changed:
		}
	}
}

// run is the engine's goroutine; it ends when the client is closed.
func (e *Engine) run() {
	ctx := e.ctx
	defer e.states.set(State{Kind: StateClosed})
	if e.cfg.Mode != ModePolling {
		e.streamer.runStream(ctx)
		return
	}
	for {
		if _, ok := e.waitWatched(ctx); !ok {
			return
		}
		if _, ok := e.poller.poll(ctx, false); !ok {
			return
		}
	}
}

// report hands a background error to the client.
func (e *Engine) report(err error) {
	if err != nil {
		e.client.ReportSyncError(err)
	}
}
