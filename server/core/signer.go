package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"sandview/crypto"
	"sandview/server/store"
)

// signer makes the deferred signatures of encrypted emails.
//
// ML-DSA-65 signing is the costly step of sealing (about 0.35 ms, against
// 0.05 ms for the rest of a payload), and a mail has three payloads. So
// ingest encrypts all three before answering 250, so that no plaintext is
// ever stored, and signs the metadata, which the event stream carries at
// once. The parsed and raw payloads are stored with a placeholder signature
// of the final size and signed afterwards: by background workers once
// ingest pauses, or by the first request that reads them, whichever comes
// first. No request ever serves a placeholder.
//
// Background signing waits for a pause of quietPeriod between arrivals,
// so a burst of mail gets all the CPU; but when more than maxBacklog emails
// wait, it goes on regardless, and ingest slows to the rate at which the
// server can sign.
type signer struct {
	store store.Store
	log   *slog.Logger

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced when the fields below change
	queue      []emailRef
	ingesting  int       // arrivals in progress
	lastIngest time.Time // end of the latest arrival
	working    int       // background signings in progress

	locks keyedMutex
}

// Background signing pace; see signer.
const (
	quietPeriod = 10 * time.Millisecond
	maxBacklog  = 10000
	// backgroundBatch emails are signed and then stored in one write.
	backgroundBatch = 16
)

func newSigner(st store.Store, log *slog.Logger) *signer {
	return &signer{store: st, log: log, changed: make(chan struct{}), locks: keyedMutex{held: make(map[string]*keyedEntry)}}
}

// notifyLocked wakes everyone waiting for a change.
func (g *signer) notifyLocked() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// ingestStarted tells the signer an arrival is in progress: background
// signing gives way to it.
func (g *signer) ingestStarted() {
	g.mu.Lock()
	g.ingesting++
	g.mu.Unlock()
}

// ingestDone ends an arrival and queues the emails it left unsigned.
func (g *signer) ingestDone(pending []emailRef) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ingesting--
	g.lastIngest = time.Now()
	g.queue = append(g.queue, pending...)
	// The workers wait for a pause or a long backlog, and wait for an empty
	// queue: while other arrivals go on and the backlog is short, no
	// waiter can act, so waking them all for every arrival of a burst
	// would be churn for nothing.
	if g.ingesting == 0 || len(g.queue) > maxBacklog {
		g.notifyLocked()
	}
}

// enqueue queues emails found unsigned in the store at start.
func (g *signer) enqueue(pending []emailRef) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.enqueueLocked(pending)
}

func (g *signer) enqueueLocked(pending []emailRef) {
	g.queue = append(g.queue, pending...)
	g.notifyLocked()
}

// run starts one background worker per CPU; they stop when ctx ends.
// wg tracks them.
func (g *signer) run(ctx context.Context, wg *sync.WaitGroup) {
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				batch, ok := g.next(ctx)
				if !ok {
					return
				}
				_, err := g.sign(ctx, batch, store.PartParsed|store.PartRaw)
				g.finished(len(batch))
				if err != nil && !errors.Is(err, store.ErrClosed) && ctx.Err() == nil {
					g.log.Warn("signing stored emails failed; reads will retry", "emails", len(batch), "error", err)
				}
			}
		}()
	}
}

// next waits until emails are queued and ingest has paused (or the backlog
// is too long), and takes up to backgroundBatch of them; ok is false when
// ctx ends first.
func (g *signer) next(ctx context.Context) (batch []emailRef, ok bool) {
	var pause *time.Timer
	defer func() {
		if pause != nil {
			pause.Stop()
		}
	}()
	for {
		g.mu.Lock()
		var untilQuiet time.Duration
		if len(g.queue) > 0 {
			if g.ingesting == 0 {
				untilQuiet = quietPeriod - time.Since(g.lastIngest)
			}
			if (g.ingesting == 0 && untilQuiet <= 0) || len(g.queue) > maxBacklog {
				n := min(len(g.queue), backgroundBatch)
				batch = slices.Clone(g.queue[:n])
				clear(g.queue[:n])
				g.queue = g.queue[n:]
				g.working += n
				g.mu.Unlock()
				return batch, true
			}
		}
		changed := g.changed
		g.mu.Unlock()
		var quiet <-chan time.Time
		if untilQuiet > 0 {
			if pause == nil {
				pause = time.NewTimer(untilQuiet)
			} else {
				pause.Reset(untilQuiet)
			}
			quiet = pause.C
		}
		select {
		case <-changed:
		case <-quiet:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// finished ends n background signings that next handed out.
func (g *signer) finished(n int) {
	g.mu.Lock()
	g.working -= n
	g.notifyLocked()
	g.mu.Unlock()
}

// wait returns once nothing is queued or being signed in the background, or
// with ctx's error.
func (g *signer) wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		if len(g.queue) == 0 && g.working == 0 {
			g.mu.Unlock()
			return nil
		}
		changed := g.changed
		g.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ready returns e with the payloads in need signed, signing them now if the
// background workers have not yet.
func (g *signer) ready(ctx context.Context, in *Inbox, e *store.Email, need store.Parts) (*store.Email, error) {
	ready, err := g.readyAll(ctx, in, []*store.Email{e}, need)
	if err != nil {
		return nil, err
	}
	if len(ready) == 0 {
		return nil, fmt.Errorf("email %s: %w", e.ID, store.ErrNotFound)
	}
	return ready[0], nil
}

// readyAll is ready for every email of a list, signing on all CPUs: the
// emails it signs are replaced by their stored form, and emails deleted
// meanwhile are dropped from the list.
func (g *signer) readyAll(ctx context.Context, in *Inbox, emails []*store.Email, need store.Parts) ([]*store.Email, error) {
	var unsigned []int // indexes in emails
	for i, e := range emails {
		if e.Unsigned&need != 0 {
			unsigned = append(unsigned, i)
		}
	}
	if len(unsigned) == 0 {
		return emails, nil
	}
	group, gctx := errgroup.WithContext(ctx)
	workers := min(len(unsigned), runtime.GOMAXPROCS(0))
	for w := range workers {
		chunk := unsigned[w*len(unsigned)/workers : (w+1)*len(unsigned)/workers]
		group.Go(func() error {
			batch := make([]emailRef, len(chunk))
			for j, i := range chunk {
				batch[j] = emailRef{inbox: in, id: emails[i].ID}
			}
			signed, err := g.sign(gctx, batch, need)
			if err != nil {
				return err
			}
			for j, i := range chunk {
				emails[i] = signed[j] // nil when deleted meanwhile
			}
			return nil
		})
	}
	if err := group.Wait(); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(emails, func(e *store.Email) bool { return e == nil }), nil
}

// sign signs the unsigned payloads among need of a batch of emails, stores
// them in one write and returns the emails as stored (nil for one deleted
// meanwhile). An email is signed by one caller at a time, so concurrent
// readers share one signature; a batch takes its emails' locks in ID order,
// so batches that overlap cannot deadlock.
func (g *signer) sign(ctx context.Context, batch []emailRef, need store.Parts) ([]*store.Email, error) {
	ids := make([]string, len(batch))
	for i, p := range batch {
		ids[i] = p.id
	}
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		unlock := g.locks.lock(id)
		defer unlock()
	}
	out := make([]*store.Email, len(batch))
	var changes []store.Signed
	for i, p := range batch {
		key := store.EmailKey{InboxHash: p.inbox.Hash, ID: p.id}
		e, err := g.store.Email(ctx, key)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[i] = e
		todo := e.Unsigned & need
		if todo == 0 {
			continue
		}
		if p.inbox.sealer == nil {
			return nil, fmt.Errorf("email %s has unsigned payloads in a plain inbox", p.id)
		}
		change, err := signStored(p.inbox.sealer, key, e, todo)
		if err != nil {
			return nil, fmt.Errorf("sign payloads of %s: %w", p.id, err)
		}
		e.Parsed, e.Raw = change.Parsed, change.Raw
		e.Unsigned &^= todo
		changes = append(changes, change)
	}
	if len(changes) > 0 {
		if err := g.store.SetSigned(ctx, changes); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// signStored signs those of e's payloads in todo, where they lie (see
// store.Signed): no reader reads an unsigned payload, and the caller holds
// e's lock. One an earlier version stored as JSON becomes a new, sealed
// one.
func signStored(sealer *crypto.Sealer, key store.EmailKey, e *store.Email, todo store.Parts) (store.Signed, error) {
	change := store.Signed{Key: key, Parts: todo, Metadata: e.Metadata, Parsed: e.Parsed, Raw: e.Raw}
	ctKem := crypto.Sealed(e.Metadata).CtKem()
	for _, p := range []struct {
		part    store.Parts
		name    string
		payload *[]byte
	}{{store.PartParsed, "parsed", &change.Parsed}, {store.PartRaw, "raw", &change.Raw}} {
		if todo&p.part == 0 {
			continue
		}
		if !crypto.IsSealed(*p.payload) {
			imported, err := sealer.Import(*p.payload)
			if err != nil {
				return store.Signed{}, fmt.Errorf("%s payload: %w", p.name, err)
			}
			*p.payload = imported
		}
		if err := sealer.SignInPlace(*p.payload, ctKem); err != nil {
			return store.Signed{}, fmt.Errorf("%s payload: %w", p.name, err)
		}
	}
	return change, nil
}

// keyedMutex is a set of mutexes by name, each existing while it is held or
// awaited.
type keyedMutex struct {
	mu   sync.Mutex
	held map[string]*keyedEntry
}

type keyedEntry struct {
	mu    sync.Mutex
	users int
}

// lock locks name's mutex and returns its unlock.
func (k *keyedMutex) lock(name string) (unlock func()) {
	k.mu.Lock()
	entry, ok := k.held[name]
	if !ok {
		entry = &keyedEntry{}
		k.held[name] = entry
	}
	entry.users++
	k.mu.Unlock()
	entry.mu.Lock()
	return func() {
		entry.mu.Unlock()
		k.mu.Lock()
		entry.users--
		if entry.users == 0 {
			delete(k.held, name)
		}
		k.mu.Unlock()
	}
}
