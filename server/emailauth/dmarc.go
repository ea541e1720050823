package emailauth

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/emersion/go-msgauth/dmarc"
	"golang.org/x/net/publicsuffix"

	"sandview/model"
)

// dmarcPolicy is the DMARC record that applies to a From domain, if any.
type dmarcPolicy struct {
	record *dmarc.Record // nil: no usable record (none, invalid or lookup failed)
	// inherited is true when the record was found at the organizational
	// domain of a subdomain, so its sp= applies.
	inherited bool
	// unavailable, when the DNS lookup failed (timed out, or the server
	// failed), says why: the result is then temperror.
	unavailable string
	// broken, when the record found does not parse, says why: the result
	// is then permerror (RFC 8601 section 2.7.7).
	broken string
}

// lookupDMARC finds the DMARC record for fromDomain: at _dmarc.<domain>,
// else at the organizational domain (RFC 7489 6.6.3).
func lookupDMARC(ctx context.Context, dns Resolver, fromDomain string) dmarcPolicy {
	if !isDomainName(fromDomain) {
		return dmarcPolicy{}
	}
	var failed error // the last lookup's failure other than "no such name"
	options := &dmarc.LookupOptions{
		LookupTXT: func(name string) ([]string, error) {
			txts, err := dns.LookupTXT(ctx, name)
			var dnsErr *net.DNSError
			if failed = err; errors.As(err, &dnsErr) && dnsErr.IsNotFound {
				failed = nil
			}
			return txts, err
		},
	}
	record, err := dmarc.LookupWithOptions(fromDomain, options)
	if err == nil {
		return dmarcPolicy{record: record}
	}
	org := organizationalDomain(fromDomain)
	if err != dmarc.ErrNoPolicy || strings.EqualFold(org, fromDomain) {
		return unavailableDMARC(ctx, failed, err)
	}
	if record, err = dmarc.LookupWithOptions(org, options); err == nil {
		return dmarcPolicy{record: record, inherited: true}
	}
	return unavailableDMARC(ctx, failed, err)
}

// unavailableDMARC is the policy of a lookup that found no usable record
// (err, the library's error): unavailable when DNS failed (failed not
// nil), with the reason; broken when a record was found but does not
// parse; else no record.
func unavailableDMARC(ctx context.Context, failed, err error) dmarcPolicy {
	if failed == nil {
		if err != nil && err != dmarc.ErrNoPolicy && !dmarc.IsTempFail(err) {
			return dmarcPolicy{broken: shorten(strings.TrimPrefix(err.Error(), "dmarc: "))}
		}
		return dmarcPolicy{}
	}
	if reason, ended := timedOut(ctx); ended {
		return dmarcPolicy{unavailable: reason}
	}
	if failure := lookupFailure(failed); failure != "" {
		return dmarcPolicy{unavailable: failure}
	}
	return dmarcPolicy{unavailable: shorten(failed.Error())}
}

// evaluateDMARC combines the record with the SPF and DKIM results. Aligned
// is true when a passing SPF or DKIM identifier aligns with the From domain
// (relaxed unless the record asks for strict alignment). Without a usable
// record the result is none, temperror when DNS failed, or permerror when
// the record is broken.
func evaluateDMARC(policy dmarcPolicy, fromDomain string, spfResult *model.SPFResult, dkimResults []model.DKIMResult) *model.DMARCResult {
	res := &model.DMARCResult{Result: model.ResultNone, Domain: fromDomain}
	if !isDomainName(fromDomain) {
		return res
	}
	spfMode, dkimMode := dmarc.AlignmentMode(dmarc.AlignmentRelaxed), dmarc.AlignmentMode(dmarc.AlignmentRelaxed)
	if policy.record != nil {
		spfMode, dkimMode = policy.record.SPFAlignment, policy.record.DKIMAlignment
	}
	if spfResult != nil && spfResult.Result == model.ResultPass && aligned(spfResult.Domain, fromDomain, spfMode) {
		res.Aligned = true
	}
	for _, d := range dkimResults {
		if d.Result == model.ResultPass && aligned(d.Domain, fromDomain, dkimMode) {
			res.Aligned = true
		}
	}
	if policy.record == nil {
		switch {
		case policy.unavailable != "":
			res.Result, res.Details = model.ResultTemperror, policy.unavailable
		case policy.broken != "":
			res.Result, res.Details = model.ResultPermerror, policy.broken
		}
		return res
	}
	res.Policy = string(policy.record.Policy)
	if policy.inherited && policy.record.SubdomainPolicy != "" {
		res.Policy = string(policy.record.SubdomainPolicy)
	}
	res.Result = model.ResultFail
	if res.Aligned {
		res.Result = model.ResultPass
	}
	return res
}

// aligned reports whether an authenticated domain aligns with the From
// domain: the same name (strict) or the same organizational domain
// (relaxed).
func aligned(authenticated, from string, mode dmarc.AlignmentMode) bool {
	authenticated, from = normalizeName(authenticated), normalizeName(from)
	if authenticated == "" || from == "" {
		return false
	}
	if mode == dmarc.AlignmentStrict {
		return authenticated == from
	}
	return organizationalDomain(authenticated) == organizationalDomain(from)
}

// organizationalDomain is the registrable domain from the public suffix
// list (example.co.uk for mail.example.co.uk); names the list cannot place
// are their own organizational domain.
func organizationalDomain(domain string) string {
	domain = normalizeName(domain)
	org, err := publicsuffix.EffectiveTLDPlusOne(domain)
	if err != nil {
		return domain
	}
	return org
}
