// Package emailauth runs the email authentication checks of the embedded
// sandbox server on a received message: SPF for the envelope sender, DKIM
// for every signature, DMARC with identifier alignment for the From domain,
// and reverse DNS (a PTR name that resolves back to the client address).
//
// All DNS goes through an injected Resolver (net.DefaultResolver when none
// is given; StaticResolver for tests and offline demos). Check never takes
// longer than its budget: lookups still pending at the deadline are
// abandoned.
//
// Results keep RFC 8601's words: a lookup that timed out, was refused or
// met a server failure makes its check temperror (details "dns timeout",
// "dns refused" or "dns server failure"), a record that does not parse
// permerror, for SPF, DKIM, DMARC and reverse DNS (iprev) alike. The
// interface's table names temperror and permerror for SPF only; the server
// sends them for the other checks too rather than a "fail" that is not
// true (a DNS hiccup is not a forged signature). A client that knows only
// the table's words still reads them as not passing, which is what they
// are; sandview's one verdict (model.AuthResults.Verdict) reads temperror
// as "not verified" and permerror as "fail".
package emailauth
