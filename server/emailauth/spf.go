package emailauth

import (
	"context"
	"fmt"
	"net"
	"strings"
	"unicode/utf8"

	"blitiri.com.ar/go/spf"

	"sandview/model"
)

// maxDetailReason caps the reason quoted in result details.
const maxDetailReason = 100

// checkSPF evaluates the SPF record of the envelope sender's domain, or of
// the HELO name for a bounce (empty MAIL FROM).
func checkSPF(ctx context.Context, dns Resolver, in Input) *model.SPFResult {
	domain, identity := spfIdentity(in)
	res := &model.SPFResult{Domain: domain}
	if in.RemoteIP != nil {
		res.IP = in.RemoteIP.String()
	}
	switch {
	case in.RemoteIP == nil || in.RemoteIP.To16() == nil:
		res.Result, res.Details = model.ResultNone, "spf=none (no client address)"
		return res
	case !isDomainName(domain):
		res.Result, res.Details = model.ResultNone, "spf=none (no domain to check)"
		return res
	}
	sender := strings.Trim(strings.TrimSpace(in.MailFrom), "<>")
	if sender == "" {
		sender = "postmaster@" + domain
	}
	result, err := spf.CheckHostWithSender(in.RemoteIP, in.Helo, sender,
		spf.WithContext(ctx), spf.WithResolver(dns))
	res.Result = string(result)
	res.Details = fmt.Sprintf("spf=%s %s", result, identity)
	if reason := spfReason(ctx, result, err); reason != "" {
		res.Details += " (" + reason + ")"
	}
	return res
}

// spfIdentity returns the domain SPF checks and how the details name the
// identity: smtp.mailfrom for a sender, smtp.helo for a bounce.
func spfIdentity(in Input) (domain, identity string) {
	sender := strings.Trim(strings.TrimSpace(in.MailFrom), "<>")
	if sender == "" {
		helo := strings.TrimSuffix(strings.TrimSpace(in.Helo), ".")
		return helo, "smtp.helo=" + helo
	}
	domain = sender
	if at := strings.LastIndexByte(sender, '@'); at >= 0 {
		domain = sender[at+1:]
	}
	return strings.TrimSuffix(domain, "."), "smtp.mailfrom=" + sender
}

// spfReason explains a result briefly: the timeout, or the library's reason
// (such as "matched ip" or "no DNS record found").
func spfReason(ctx context.Context, result spf.Result, err error) string {
	if reason, ended := timedOut(ctx); ended && result == spf.TempError {
		return reason
	}
	if err == nil {
		return ""
	}
	if failure := lookupFailure(err); failure != "" {
		return failure
	}
	return shorten(err.Error())
}

// isDomainName reports whether s can be looked up as a domain: not empty,
// not an address literal.
func isDomainName(s string) bool {
	if s == "" || strings.ContainsAny(s, "[]: @") {
		return false
	}
	return net.ParseIP(s) == nil
}

func shorten(s string) string {
	if len(s) <= maxDetailReason {
		return s
	}
	cut := maxDetailReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
