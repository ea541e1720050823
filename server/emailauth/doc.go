// Package emailauth runs the email authentication checks of the embedded
// sandbox server on a received message: SPF for the envelope sender, DKIM
// for every signature, DMARC with identifier alignment for the From domain,
// and reverse DNS (a PTR name that resolves back to the client address).
//
// All DNS goes through an injected Resolver (net.DefaultResolver when none
// is given; StaticResolver for tests and offline demos). Check never takes
// longer than its budget: lookups still pending at the deadline are
// abandoned and the affected checks degrade to temperror (SPF) or to a
// non-passing result whose details say "dns timeout". Results use the
// service contract's values (see model.AuthResults).
package emailauth
