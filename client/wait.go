package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"sandview/client/internal/watch"
	"sandview/model"
)

// DefaultWaitTimeout is how long WaitForEmail waits when
// WaitOptions.Timeout is zero.
const DefaultWaitTimeout = 30 * time.Second

// NoWait as WaitOptions.Timeout makes a wait look at the mail already in
// the inbox once and return at once: the emails when enough match, else a
// *TimeoutError (the contract's "timeout 0"; a zero Timeout means the
// default 30 s in Go).
const NoWait time.Duration = -1

// WaitOptions filter the emails a wait is for; all set filters must match.
type WaitOptions struct {
	Subject, From Matcher
	// To, when set, keeps only mail sent to this address (one of its
	// recipients; see model.Email.SentTo): one address's mail in a
	// catch-all.
	To string
	// Predicate, when set, is called with the full email.
	Predicate func(model.Email) bool
	// Timeout: zero means DefaultWaitTimeout; NoWait means look once.
	Timeout time.Duration
	// PollInterval, when positive, also lists the inbox at this interval
	// while waiting, whatever the delivery strategy (a safety net; new
	// mail normally arrives through the client's delivery).
	PollInterval time.Duration
}

// WaitForEmail returns the first email of the inbox that matches: the
// oldest matching one already there, else the first matching one to
// arrive. On timeout it returns a *TimeoutError.
func (i *Inbox) WaitForEmail(ctx context.Context, opts WaitOptions) (model.Email, error) {
	emails, err := i.WaitForEmailCount(ctx, 1, opts)
	if err != nil {
		return model.Email{}, err
	}
	return emails[0], nil
}

// WaitForEmailCount returns n matching emails with full content: the
// first n found to match, looking at those already in the inbox (oldest
// first) and then at those that arrive. They are returned oldest first by
// receivedAt, emails received at the same time by id (the order in which
// they arrived and the order of the list, whatever order delivery, which
// fetches in parallel, handed them over in). It subscribes before it looks
// at the inbox, so an email arriving meanwhile is not missed. On timeout
// it returns a *TimeoutError; when ctx ends, ctx's error; after Close,
// ErrClientClosed.
func (i *Inbox) WaitForEmailCount(ctx context.Context, n int, opts WaitOptions) ([]model.Email, error) {
	if n < 1 {
		return nil, fmt.Errorf("wait for %d emails: the count must be at least 1", n)
	}
	c := i.c
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultWaitTimeout
	}
	op := fmt.Sprintf("wait for %d matching email(s) in %s", n, i.info.EmailAddress)
	w := &waiter{inbox: i, opts: opts, n: n, considered: map[string]bool{}}
	if timeout < 0 {
		if err := w.lookAtInbox(ctx); err != nil {
			return nil, err
		}
		if w.done() {
			return w.result(), nil
		}
		return nil, &TimeoutError{Op: op}
	}

	ctx, stopClient := c.withClientContext(ctx)
	defer stopClient()
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errWaitTimedOut)
	defer cancel()
	fail := func(err error) ([]model.Email, error) {
		switch {
		case c.ctx.Err() != nil:
			return nil, ErrClientClosed
		case errors.Is(context.Cause(ctx), errWaitTimedOut):
			return nil, &TimeoutError{Op: op, After: timeout}
		}
		return nil, err
	}

	var mu sync.Mutex
	var pending []model.Email
	arrived := make(chan struct{}, 1)
	ids, err := c.subscribe(ctx, []*Inbox{i}, []watch.Callbacks{{Deliver: func(e model.Email) {
		mu.Lock()
		pending = append(pending, e)
		mu.Unlock()
		select {
		case arrived <- struct{}{}:
		default:
		}
	}}}, true)
	if err != nil {
		return fail(err)
	}
	defer c.engine.Unsubscribe(map[string]int{i.info.InboxHash: ids[0]})

	if err := w.lookAtInbox(ctx); err != nil {
		return fail(err)
	}
	var tick <-chan time.Time
	if opts.PollInterval > 0 {
		ticker := time.NewTicker(opts.PollInterval)
		defer ticker.Stop()
		tick = ticker.C
	}
	for !w.done() {
		select {
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-arrived:
			mu.Lock()
			batch := pending
			pending = nil
			mu.Unlock()
			for _, e := range batch {
				if err := w.consider(ctx, e); err != nil {
					return fail(err)
				}
			}
		case <-tick:
			if err := w.lookAtInbox(ctx); err != nil {
				if ctx.Err() != nil {
					return fail(ctx.Err())
				}
				if isRefusal(err) {
					return fail(err)
				}
				c.reportSyncError(err)
			}
		}
	}
	return w.result(), nil
}

var errWaitTimedOut = errors.New("wait timed out")

// waiter collects the matching emails of one wait.
type waiter struct {
	inbox      *Inbox
	opts       WaitOptions
	n          int
	considered map[string]bool
	matched    []model.Email
}

func (w *waiter) done() bool { return len(w.matched) >= w.n }

// result returns the matched emails oldest first, by receivedAt and then
// by id.
func (w *waiter) result() []model.Email {
	out := slices.Clone(w.matched[:w.n])
	slices.SortStableFunc(out, func(a, b model.Email) int {
		if c := a.ReceivedAt.Compare(b.ReceivedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// lookAtInbox considers the emails in the inbox, oldest first.
func (w *waiter) lookAtInbox(ctx context.Context) error {
	emails, err := w.inbox.Emails(ctx, ListOptions{})
	if emails == nil && err != nil {
		return err
	}
	for k := len(emails) - 1; k >= 0 && !w.done(); k-- {
		if err := w.consider(ctx, emails[k]); err != nil {
			return err
		}
	}
	return nil
}

// consider adds e when it matches, fetching its content when needed. An
// email that cannot be opened never matches; one that failed the crypto
// checks (decryption failed, server key mismatch: a tampered or forged
// record) ends the wait with that error, as the contract's security rules
// have it.
func (w *waiter) consider(ctx context.Context, e model.Email) error {
	if e.ID == "" || w.considered[e.ID] || w.done() {
		return nil
	}
	w.considered[e.ID] = true
	if err := refusal(e); err != nil {
		return err
	}
	if e.Problem != "" || !w.opts.Subject.Match(e.Subject) || !w.opts.From.Match(e.From) || w.opts.To != "" && !e.SentTo(w.opts.To) {
		return nil
	}
	if !e.HasContent {
		full, err := w.inbox.Email(ctx, e.ID)
		var notFound *EmailNotFoundError
		switch {
		case errors.As(err, &notFound):
			return nil // deleted meanwhile
		case err != nil && full.Problem != "":
			return refusal(full)
		case err != nil:
			delete(w.considered, e.ID)
			return err
		}
		e = full
	}
	if w.opts.Predicate != nil && !w.opts.Predicate(e) {
		return nil
	}
	w.matched = append(w.matched, e)
	return nil
}
