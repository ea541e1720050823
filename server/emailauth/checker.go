package emailauth

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"sandview/model"
)

// defaultBudget is the time all checks of one message may take together.
const defaultBudget = 2 * time.Second

// Checker runs the authentication checks. The zero value uses
// net.DefaultResolver and a 2 s budget. It is safe for concurrent use.
type Checker struct {
	Resolver Resolver      // nil = net.DefaultResolver
	Budget   time.Duration // total time for all checks; 0 = 2s
}

// Input is what the checks need to know about one received message.
type Input struct {
	Raw        []byte // the full message as received (for DKIM)
	RemoteIP   net.IP
	Helo       string
	MailFrom   string // SMTP envelope sender ("" for bounces)
	FromDomain string // domain of the RFC5322.From address
}

// Check runs SPF, DKIM, reverse DNS and the DMARC lookup concurrently and
// returns within the budget (or sooner when ctx ends). Every check is
// always present in the result: DKIM has one entry per signature, or one
// "none" entry for an unsigned message.
func (c *Checker) Check(ctx context.Context, in Input) model.AuthResults {
	budget := c.Budget
	if budget <= 0 {
		budget = defaultBudget
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	var dns Resolver = net.DefaultResolver
	if c.Resolver != nil {
		dns = c.Resolver
	}
	dns = newBoundedResolver(dns)

	var (
		spfResult  *model.SPFResult
		dkimResult []model.DKIMResult
		reverse    *model.ReverseDNSResult
		policy     dmarcPolicy
		wg         sync.WaitGroup
	)
	// A new goroutine grows its stack to what the checks need by copying
	// it, which costs as much as checks answered from a DNS cache: so SPF
	// runs on the caller's goroutine, and DKIM in a goroutine only when the
	// message is signed.
	wg.Go(func() { reverse = checkReverseDNS(ctx, dns, in.RemoteIP) })
	wg.Go(func() { policy = lookupDMARC(ctx, dns, in.FromDomain) })
	if hasSignatureField(in.Raw) {
		wg.Go(func() { dkimResult = checkDKIM(ctx, dns, in.Raw) })
	} else {
		dkimResult = unsignedDKIM()
	}
	spfResult = checkSPF(ctx, dns, in)
	wg.Wait()

	return model.AuthResults{
		SPF:        spfResult,
		DKIM:       dkimResult,
		DMARC:      evaluateDMARC(policy, in.FromDomain, spfResult, dkimResult),
		ReverseDNS: reverse,
	}
}

// Skipped is the result for an inbox with email authentication disabled:
// every check "skipped", with one DKIM entry.
func Skipped(ip string) model.AuthResults {
	return model.AuthResults{
		SPF:        &model.SPFResult{Result: model.ResultSkipped, IP: ip, Details: "SPF check disabled"},
		DKIM:       []model.DKIMResult{{Result: model.ResultSkipped, Signature: "DKIM check disabled"}},
		DMARC:      &model.DMARCResult{Result: model.ResultSkipped},
		ReverseDNS: &model.ReverseDNSResult{Result: model.ResultSkipped, IP: ip},
	}
}

// timedOut reports whether ctx ended; reason names why for result details.
func timedOut(ctx context.Context) (reason string, ended bool) {
	if ctx.Err() == nil {
		return "", false
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return dnsTimeout, true
	}
	return "check canceled", true
}
