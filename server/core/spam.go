package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"sandview/model"
	"sandview/server/spamd"
)

// scoreSpam starts scoring raw with spamd (Options.Spamd) and returns how
// to wait for the analysis: nil without spamd; else the score, or, when
// spamd is down, fails or has not answered within SpamdBudget of the
// start, an analysis with status "error" saying so — the mail is stored
// anyway, never held back longer than the budget.
//
// The analysis is part of the parsed content, so an encrypted inbox gets
// it inside the encrypted payload: the rules that fired describe the
// content (a subject line, a phrase, an image-only body), which must not
// be readable without the inbox's key.
func (c *checks) scoreSpam(ctx context.Context, raw []byte, log *slog.Logger) func() *model.SpamAnalysis {
	if c.spamd == "" {
		return func() *model.SpamAnalysis { return nil }
	}
	budget := c.spamdBudget
	ctx, cancel := context.WithTimeout(ctx, budget)
	done := make(chan model.SpamAnalysis, 1)
	go func() {
		a, err := spamd.Client{Addr: c.spamd}.Check(ctx, raw)
		if err != nil {
			info := fmt.Sprintf("spamd at %s failed: %v", c.spamd, err)
			if errors.Is(err, context.DeadlineExceeded) {
				info = fmt.Sprintf("spamd at %s did not answer within %s", c.spamd, budget)
			}
			log.Warn("spam score", "spamd", c.spamd, "err", err)
			a = model.SpamAnalysis{Status: model.SpamError, Info: info}
		}
		done <- a
	}()
	return func() *model.SpamAnalysis {
		defer cancel()
		a := <-done
		return &a
	}
}
