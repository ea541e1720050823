package watch

import (
	"context"
	"fmt"
	"sync"
)

// Inboxes the server no longer knows (deleted, expired, or lost when a
// server without persistence restarted) are not retried: their watch ends
// at once, their subscribers hear Gone, and the stream goes on without them.

// MarkGone ends the watch of the inbox hash because the server answered,
// with err, that it does not know the inbox (the client learnt it outside
// the engine, e.g. listing the inbox for a caller).
func (e *Engine) MarkGone(hash string, err error) {
	e.mu.Lock()
	w := e.watched[hash]
	e.mu.Unlock()
	if w != nil {
		e.markGone(w, err)
	}
}

// markGone ends watch w, if it is still current, telling its subscribers why;
// the stream then reconnects without the inbox.
func (e *Engine) markGone(w *watched, err error) {
	var calls []func()
	e.mu.Lock()
	if e.watched[w.inbox.Hash()] != w {
		e.mu.Unlock()
		return
	}
	delete(e.watched, w.inbox.Hash())
	for _, s := range w.subs {
		switch {
		case s.Gone != nil:
			calls = append(calls, func() { s.Gone(err) })
		case s.Ended != nil:
			calls = append(calls, s.Ended)
		}
	}
	e.mu.Unlock()
	e.report(fmt.Errorf("stopped watching %s: %w", w.inbox.Address(), err))
	for _, fn := range calls {
		fn()
	}
	e.notifyChanged()
}

// goneAfter marks w gone when err says its inbox is unknown; it reports
// whether it did.
func (e *Engine) goneAfter(w *watched, err error) bool {
	if err == nil || !e.client.InboxGone(err) {
		return false
	}
	e.markGone(w, err)
	return true
}

// checkRefused follows a refused stream open: every watched inbox is
// listed, in parallel, and those the server does not know are marked
// gone. It reports whether any was (or nothing is watched any more), so
// the stream can be opened again at once for the others; when none was,
// the refusal is about something else (the key) and retrying the stream
// will not help.
func (e *Engine) checkRefused(ctx context.Context) bool {
	var mu sync.Mutex
	gone := false
	var wg sync.WaitGroup
	for _, w := range e.watchedList() {
		wg.Go(func() {
			_, err := e.listOrdered(ctx, w.inbox)
			if e.goneAfter(w, err) {
				mu.Lock()
				gone = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return gone || len(e.snapshot()) == 0
}
