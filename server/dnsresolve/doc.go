// Package dnsresolve is the DNS client of the embedded server's mail
// authentication checks (server/emailauth): a stub resolver built on
// github.com/miekg/dns, which, unlike net.Resolver, sees the TTLs of the
// answers, so that it can cache them.
//
// Test mail comes from a handful of sender domains, so nearly every lookup
// a check makes has been made before: a Resolver answers those from its
// cache. Answers are kept for their TTL (capped at Config.MaxTTL), in a
// cache of at most Config.MaxEntries names; NXDOMAIN and NODATA are kept
// for the negative TTL of RFC 2308 (the SOA's, not at all without one);
// a query that got no answer or a server failure is remembered for a short
// hold-down, so a dead server costs each mail nothing instead of its whole
// budget. One query per name and type is in flight at a time: concurrent
// lookups share it. A query runs on with its own timeout when the caller
// that started it gives up, so a slow server still fills the cache.
//
// Queries go over UDP (EDNS0), are retransmitted to the next server with
// a doubling interval while unanswered, and are asked again over TCP when
// the answer is truncated. Names and addresses in the hosts file are
// answered from it first, as the system resolver does. Errors are the
// *net.DNSError values net.Resolver returns: IsNotFound for NXDOMAIN and
// NODATA, IsTimeout when nothing answered, and IsTemporary for every
// failure but IsNotFound (SERVFAIL, REFUSED, any other RCODE, a timeout),
// so the SPF, DKIM and DMARC libraries report them as temperror, as RFC
// 7208 section 5 asks.
package dnsresolve
