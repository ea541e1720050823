package watch

import (
	"context"
	"fmt"
	"sync"
	"time"

	"sandview/client/internal/async"
	"sandview/model"
)

// listIDs lists the ids of the inbox's emails as a set.
func (e *Engine) listIDs(ctx context.Context, in Inbox) (map[string]bool, error) {
	list, err := e.listOrdered(ctx, in)
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
func (e *Engine) listOrdered(ctx context.Context, in Inbox) ([]string, error) {
	ids, _, err := e.listWithMetadata(ctx, in, nil)
	return ids, err
}

// listWithMetadata is listOrdered that also opens the metadata of the
// records meta accepts (Inbox.ListIDs).
func (e *Engine) listWithMetadata(ctx context.Context, in Inbox, meta func(id string) bool) ([]string, map[string]model.Email, error) {
	e.listSlots <- struct{}{}
	defer func() { <-e.listSlots }()
	return in.ListIDs(ctx, meta)
}

// seedInBackground seeds a watch that was made without seeding, retrying
// with backoff until it works, the watch ends or the client is closed.
func (e *Engine) seedInBackground(w *watched) {
	ctx, cfg := e.ctx, e.cfg
	delay := cfg.PollingInterval
	reported := false
	for e.current(w) {
		ids, err := e.listIDs(ctx, w.inbox)
		if err == nil {
			var ready []func()
			e.mu.Lock()
			if !w.seeded {
				w.seen, w.seeded = ids, true
				for _, s := range w.subs {
					if s.Ready != nil {
						ready = append(ready, s.Ready)
					}
				}
			}
			e.mu.Unlock()
			for _, fn := range ready {
				fn()
			}
			return
		}
		if ctx.Err() != nil || e.goneAfter(w, err) {
			return
		}
		if !reported { // once per streak; it is retried silently after that
			reported = true
			e.report(fmt.Errorf("watch %s: %w", w.inbox.Address(), err))
		}
		if async.Sleep(ctx, delay) != nil {
			return
		}
		delay = min(delay*2, max(cfg.PollingMaxBackoff, cfg.PollingInterval))
	}
}

// fetchAndDeliver fetches a claimed email in full and delivers it; an
// email the event stream announced (ev) to subscribers that all want
// the metadata only is delivered from the notification, unfetched. An
// email that cannot be opened is delivered with Problem set and the error
// reported. A transient failure gives the claim back and returns the
// error, so that a later sync fetches it again.
func (e *Engine) fetchAndDeliver(ctx context.Context, w *watched, id string, ev *model.StreamEvent) error {
	e.fetchSlots <- struct{}{}
	defer func() { <-e.fetchSlots }()
	in := w.inbox
	var meta model.Email
	if ev != nil {
		m, err := in.OpenNotification(*ev)
		if err != nil {
			return e.deliverFailure(w, id, m, fmt.Errorf("new email %s in %s: %w", id, in.Address(), err))
		}
		meta = m
		if e.metadataOnly(w) {
			e.fanout(w, meta)
			return nil
		}
	}
	email, gone, err := in.Fetch(ctx, id)
	switch {
	case err == nil:
		e.fanout(w, email)
		return nil
	case gone:
		// Deleted before it could be fetched: deliver what the
		// notification said, if anything.
		if meta.ID != "" {
			e.fanout(w, meta)
		}
		e.report(fmt.Errorf("new email %s in %s was deleted before it could be fetched: %w", id, in.Address(), err))
		return nil
	}
	return e.deliverFailure(w, id, email, fmt.Errorf("fetch new email %s in %s: %w", id, in.Address(), err))
}

// deliverFailure handles an email that could not be fetched or opened: a
// problem email (decryption failed, server key mismatch) is delivered as
// such; anything else gives the claim back.
func (e *Engine) deliverFailure(w *watched, id string, email model.Email, err error) error {
	if ctxErr := e.ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	e.report(err)
	if email.Problem != "" && email.ID != "" {
		e.fanout(w, email)
		return nil
	}
	e.unclaim(w, id)
	return err
}

// syncInbox lists a seeded inbox and delivers the emails not seen yet,
// oldest first: with the listing's metadata when every subscriber wants
// the metadata only, else fetched. It reports its errors and returns
// whether everything was delivered; an inbox the server does not know is
// marked gone instead.
func (e *Engine) syncInbox(ctx context.Context, w *watched) bool {
	if !e.isSeeded(w) {
		return true
	}
	ids, metas, err := e.listWithMetadata(ctx, w.inbox, e.unseenIfMetadataOnly(w))
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		if e.goneAfter(w, err) {
			return true // nothing to retry
		}
		e.report(fmt.Errorf("sync %s: %w", w.inbox.Address(), err))
		return false
	}
	ok := true
	for k := len(ids) - 1; k >= 0; k-- {
		id := ids[k]
		if !e.claim(w, id) {
			continue
		}
		if meta, listed := metas[id]; listed && e.metadataOnly(w) {
			e.fanout(w, meta)
			continue
		}
		if e.fetchAndDeliver(ctx, w, id, nil) != nil {
			ok = false
		}
	}
	return ok
}

// syncAll syncs every watched inbox, retrying failed ones later.
func (e *Engine) syncAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, w := range e.watchedList() {
		wg.Go(func() {
			if !e.syncInbox(ctx, w) {
				e.resyncLater(ctx, w)
			}
		})
	}
	wg.Wait()
}

// resyncLater syncs w again after a delay that doubles from
// PollingInterval up to PollingMaxBackoff while syncs keep failing.
func (e *Engine) resyncLater(ctx context.Context, w *watched) {
	cfg := e.cfg
	e.mu.Lock()
	if w.resyncPending || e.watched[w.inbox.Hash()] != w {
		e.mu.Unlock()
		return
	}
	w.resyncPending = true
	delay := max(w.resyncDelay, cfg.PollingInterval)
	w.resyncDelay = min(delay*2, max(cfg.PollingMaxBackoff, cfg.PollingInterval))
	e.mu.Unlock()
	time.AfterFunc(delay, func() {
		if ctx.Err() != nil {
			return
		}
		e.mu.Lock()
		w.resyncPending = false
		e.mu.Unlock()
		if !e.current(w) {
			return
		}
		if !e.syncInbox(ctx, w) {
			e.resyncLater(ctx, w)
			return
		}
		e.mu.Lock()
		w.resyncDelay = 0
		e.mu.Unlock()
	})
}
