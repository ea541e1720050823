package server

import (
	"context"
	"errors"
	"fmt"

	"sandview/model"
	"sandview/server/spamd"
)

// scoreSpam starts scoring raw with spamd (Config.Spamd) and returns how
// to wait for the analysis: nil without spamd; else the score, or, when
// spamd is down, fails or has not answered within SpamdBudget of the
// start, an analysis with status "error" saying so — the mail is stored
// anyway, never held back longer than the budget.
//
// The analysis is part of the parsed content, so an encrypted inbox gets
// it inside the encrypted payload: the rules that fired describe the
// content (a subject line, a phrase, an image-only body), which must not
// be readable without the inbox's key.
func (s *Server) scoreSpam(ctx context.Context, raw []byte) func() *model.SpamAnalysis {
	if s.cfg.Spamd == "" {
		return func() *model.SpamAnalysis { return nil }
	}
	budget := s.cfg.SpamdBudget
	ctx, cancel := context.WithTimeout(ctx, budget)
	done := make(chan model.SpamAnalysis, 1)
	go func() {
		a, err := spamd.Client{Addr: s.cfg.Spamd}.Check(ctx, raw)
		if err != nil {
			info := fmt.Sprintf("spamd at %s failed: %v", s.cfg.Spamd, err)
			if errors.Is(err, context.DeadlineExceeded) {
				info = fmt.Sprintf("spamd at %s did not answer within %s", s.cfg.Spamd, budget)
			}
			s.cfg.Logger.Warn("spam score", "spamd", s.cfg.Spamd, "err", err)
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
