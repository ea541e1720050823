package emailauth

import (
	"context"
	"net"
	"strings"

	"sandview/model"
)

// maxPTRNames caps the PTR names forward-confirmed per address.
const maxPTRNames = 5

// checkReverseDNS looks up the PTR names of ip and passes when one of them
// resolves back to ip (forward-confirmed reverse DNS, RFC 8601's iprev).
// No PTR gives none; a PTR that does not confirm gives fail; a lookup the
// DNS did not answer (or refused, or failed), when no name confirmed,
// gives temperror.
func checkReverseDNS(ctx context.Context, dns Resolver, ip net.IP) *model.ReverseDNSResult {
	if ip == nil || ip.To16() == nil {
		return &model.ReverseDNSResult{Result: model.ResultNone}
	}
	res := &model.ReverseDNSResult{Result: model.ResultNone, IP: ip.String()}
	names, err := dns.LookupAddr(ctx, ip.String())
	if lookupFailure(err) != "" {
		res.Result = model.ResultTemperror
		return res
	}
	if err != nil || len(names) == 0 {
		return res
	}
	res.Result, res.Hostname = model.ResultFail, strings.TrimSuffix(names[0], ".")
	for _, name := range names[:min(len(names), maxPTRNames)] {
		host := strings.TrimSuffix(name, ".")
		addrs, err := dns.LookupIPAddr(ctx, host)
		if lookupFailure(err) != "" {
			res.Result = model.ResultTemperror
		}
		for _, addr := range addrs {
			if addr.IP.Equal(ip) {
				res.Result, res.Hostname = model.ResultPass, host
				return res
			}
		}
	}
	return res
}
