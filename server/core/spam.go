package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"sandview/model"
	"sandview/server/spamd"
)

// spamdRetryAfter is how long mail is stored unscored, without asking
// spamd, after spamd let a mail's budget run out (see spamBreaker).
const spamdRetryAfter = 30 * time.Second

// scoreSpam starts scoring each copy of a message with spamd
// (Options.Spamd) — the bytes that are stored, Received line included —
// and returns how to wait for the analyses, one per copy: nil without
// spamd; else the score, or, when spamd is down, fails or has not answered
// within SpamdBudget of the start, an analysis with status "error" saying
// so. The mail is stored anyway, never held back longer than the budget,
// and not at all while the breaker is open (see spamBreaker).
//
// The analysis is part of the parsed content, so an encrypted inbox gets
// it inside the encrypted payload: the rules that fired describe the
// content (a subject line, a phrase, an image-only body), which must not
// be readable without the inbox's key.
func (c *checks) scoreSpam(ctx context.Context, copies [][]byte, log *slog.Logger) func() []*model.SpamAnalysis {
	none := func() []*model.SpamAnalysis { return make([]*model.SpamAnalysis, len(copies)) }
	if c.spamd == "" || len(copies) == 0 {
		return none
	}
	if ok, retry := c.spamdBreaker.allow(); !ok {
		info := fmt.Sprintf("spamd at %s did not answer within %s on an earlier mail; it is asked again from %s", c.spamd, c.spamdBudget, retry.UTC().Format(time.TimeOnly))
		return func() []*model.SpamAnalysis {
			out := none()
			for i := range out {
				out[i] = &model.SpamAnalysis{Status: model.SpamError, Info: info}
			}
			return out
		}
	}
	budget := c.spamdBudget
	ctx, cancel := context.WithTimeout(ctx, budget)
	out := make([]*model.SpamAnalysis, len(copies))
	var wg sync.WaitGroup
	var mu sync.Mutex
	timedOut := false
	for i, raw := range copies {
		wg.Go(func() {
			a, err := spamd.Client{Addr: c.spamd}.Check(ctx, raw)
			if err != nil {
				info := fmt.Sprintf("spamd at %s failed: %v", c.spamd, err)
				if errors.Is(err, context.DeadlineExceeded) {
					info = fmt.Sprintf("spamd at %s did not answer within %s", c.spamd, budget)
					mu.Lock()
					timedOut = true
					mu.Unlock()
				}
				log.Warn("spam score", "spamd", c.spamd, "err", err)
				a = model.SpamAnalysis{Status: model.SpamError, Info: info}
			}
			out[i] = &a
		})
	}
	return func() []*model.SpamAnalysis {
		defer cancel()
		wg.Wait()
		c.spamdBreaker.done(timedOut)
		return out
	}
}

// spamBreaker keeps a spamd that does not answer from holding every mail
// back for the whole budget: once spamd lets a mail's budget run out
// (open), mail is stored at once, unscored, for spamdRetryAfter; then one
// mail asks spamd again (half-open) while the others still go unscored,
// and its answer closes the breaker, its timeout opens it again.
type spamBreaker struct {
	now func() time.Time

	mu        sync.Mutex
	openUntil time.Time // zero: closed
	probing   bool
}

// allow reports whether a mail may ask spamd now, and if not, from when.
func (b *spamBreaker) allow() (ok bool, retry time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.openUntil.IsZero():
		return true, time.Time{}
	case b.probing || b.now().Before(b.openUntil):
		return false, b.openUntil
	}
	b.probing = true
	return true, time.Time{}
}

// done records how an allowed mail's scoring ended.
func (b *spamBreaker) done(timedOut bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	if timedOut {
		b.openUntil = b.now().Add(spamdRetryAfter)
	} else {
		b.openUntil = time.Time{}
	}
}
